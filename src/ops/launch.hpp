// What every wrapper does around a dispatch: the device-limit checks, the push-constant block of the
// pad family, and running a recorded op with timestamps around its kernels.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fkc/contract.hpp"
#include "fkc/vocab.hpp"
#include "fvk/context.hpp"
#include "fvk/pad_spec.hpp"
#include "runtime/buffer.hpp"
#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace fvk::ops {

// Push constants shared by the pad family (pad.comp, pad_backward_*.comp): 20 bytes.
struct PadPush {
  std::uint32_t n_invocations;  // the dispatch bound the kernel checks against
  std::uint32_t n_dst;          // elements of the destination
  std::uint32_t rank;
  std::uint32_t fill_lo;
  std::uint32_t fill_hi;
};
static_assert(sizeof(PadPush) == 20);

// Throws DeviceLimit when one binding of `bytes` would exceed maxStorageBufferRange.
void check_binding_size(const rt::Device& device, std::uint64_t bytes, std::string_view what);
// Throws DTypeNotAccepted unless the contract of `kernel` declares `dtype` for its data input. When no
// contract has that name (a dtype-specific family has no kernel for this dtype), the message lists
// what the family's contracts accept.
void check_contract_dtype(std::string_view kernel, DType dtype, std::string_view what);
// Whether the device offers (and the runtime enables) a feature a contract may require.
bool device_has(const DeviceInfo& device, fkc::Feature feature);
// The features the contract requires (caps.requires_features) that the device lacks, in the
// contract's order; and the FeatureMissing text that names them.
std::vector<std::string_view> missing_features(const DeviceInfo& device, const fkc::Contract& contract);
std::string missing_features_message(std::string_view kernel, std::span<const std::string_view> missing,
                                     const DeviceInfo& device);
// Throws FeatureMissing naming every device feature the kernel's contract requires
// (caps.requires_features) that the device lacks.
void check_contract_features(const rt::Device& device, std::string_view kernel);

// Portable builds (contracts/portable.fkc.md): a kernel that needs subgroup operations may ship a
// build without them, named with "_portable" before its last suffix (pad_reflect_b1 ->
// pad_reflect_portable_b1). portable_build_name gives that name, whether or not it ships;
// fast_build_of the kernel a portable build stands in for ("" for any other kernel).
std::string portable_build_name(std::string_view kernel);
std::string fast_build_of(std::string_view kernel);
// The build of `kernel` to dispatch on this device: the kernel itself where the device has every
// feature its contract requires, else its portable build where one ships and the device can run it,
// else the kernel itself (whose feature check then names what is missing).
std::string usable_build(const DeviceInfo& device, std::string_view kernel);

// Merges neighbouring axes that are not padded (identical index maps), so kernels walk fewer axes,
// as long as a merged dim stays below 2^31 (the kernels' coordinates are signed 32-bit).
PadGeometry coalesce(const PadGeometry& g);
// shape_buf = [in_shape, out_shape, left_pad] as u32, rank entries each.
std::vector<std::uint32_t> shape_buf(const PadGeometry& g);
// `buf` followed by, for every dim d of `dims`, the multiplier and then the two shifts (low byte,
// next byte) with which a kernel divides a u32 by d without a divide instruction (Granlund and
// Montgomery, "Division by invariant integers using multiplication", fig. 4.1): all multipliers
// first, then all shift pairs.
std::vector<std::uint32_t> with_divisors(std::vector<std::uint32_t> buf, const Shape& dims);

// Whether a destination of `bytes` takes the pad family's multi-pass paths (pad.comp's tile, inner
// and edge passes; the atomic backward's crop and pad passes): from 1 MiB, where they measured
// faster on the H200, or always on a device opened with always_split_passes (the tests).
inline bool takes_large_passes(const rt::Device& device, std::uint64_t bytes) {
  return bytes >= (std::uint64_t{1} << 20) || device.always_split_passes();
}

// Invocations of a dispatch in which each 256 invocations take `per_group` items (chunks, rows): a
// whole number of such groups covering `items`. (pad.comp's workgroups of 128, for 2-byte elements,
// each take half of a group's items.)
constexpr std::uint64_t grouped_invocations(std::uint64_t items, std::uint64_t per_group) {
  return (items + per_group - 1) / per_group * 256;
}

// Invocations of a pass that takes four chunks 32 apart per invocation (the kernels map invocation g
// to chunk (g / 32) * 128 + g % 32 and the three 32, 64 and 96 after it): 32 per 128 chunks.
constexpr std::uint64_t four_apart_invocations(std::uint64_t chunks) { return (chunks + 127) / 128 * 32; }

// Records `body` into a fresh stream between two timestamps, submits, waits, and stores the GPU
// time in ctx.last_kernel_ns().
void run_timed(Context& ctx, const std::function<void(rt::Stream&)>& body);

template <typename T>
std::span<const std::byte> bytes_of(const T& v) {
  return std::as_bytes(std::span<const T>(&v, 1));
}

}  // namespace fvk::ops
