// Recording entry points of the pad family, shared by the public ops, the planner and the Judge.
// Callers have validated the geometry (infer_pad / infer_pad_backward) and allocated the buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "fvk/ops.hpp"
#include "fvk/pad_spec.hpp"
#include "runtime/buffer.hpp"
#include "runtime/stream.hpp"

namespace fvk::ops {

// The kernel each op dispatches on this device: the fast build, or its portable build where the
// device lacks a feature the fast one needs (usable_build, launch.hpp).
std::string pad_kernel(const DeviceInfo& device, PadMode mode, DType dtype);
std::string pad_backward_kernel(const DeviceInfo& device, PadMode mode, DType dtype, BackwardAlgorithm algorithm);
// The constant-mode backward's crop (pad.cpp), which the atomic backward also runs.
std::string backward_const_kernel(const DeviceInfo& device, DType dtype);
std::string masked_fill_kernel(DType dtype);

// Loop iterations one invocation of the deterministic reflect / replicate backward may run on this
// geometry (an estimate on the safe side; 0 for constant mode or an empty grad_in), to hold against
// DeviceInfo::max_loop_iterations on devices that end long loops. `always_split`: the device's
// always_split_passes (the passes it takes change the count).
std::uint64_t det_backward_loop_iterations(const PadGeometry& g, DType dtype, bool always_split = false);
// Whether the deterministic backward runs this geometry as its element pass (pad_backward_det.comp's
// pass 12: small tensors with short contributor lists). For tests, which hold their geometries to
// the pass they mean to exercise.
bool det_backward_takes_element_pass(const PadGeometry& g, DType dtype, bool always_split = false);

// Checks that the kernel accepts the dtype and the device can run it; throws before dispatching.
void check_pad(const rt::Device& device, const PadGeometry& g, DType dtype);
void check_pad_backward(const rt::Device& device, const PadGeometry& g, DType dtype, BackwardAlgorithm algorithm);
void check_masked_fill(const rt::Device& device, const Shape& shape, DType dtype);

// `kernel`: the build to dispatch (the Judge and the selftest time and check each build); empty,
// the one pad_kernel / pad_backward_kernel choose for the stream's device.
void record_pad(rt::Stream& stream, const PadGeometry& g, DType dtype, const rt::Buffer& in, const rt::Buffer& out,
                std::uint64_t fill_bits, std::string_view kernel = {});
// The constant-mode backward (a crop through pad.comp), pad.cpp.
void record_backward_const(rt::Stream& stream, const PadGeometry& g, DType dtype, const rt::Buffer& grad_out,
                           const rt::Buffer& grad_in, std::string_view kernel = {});
// The atomic kernels add the grad_out elements in a pad onto a crop (on grad_out of 1 MiB and more),
// or every element onto a zero-filled grad_in: a first phase that writes every grad_in element,
// then a barrier, then the atomic adds. With `second` null the whole op is recorded; otherwise the
// first phase is, and *second receives the adds (empty for every other kernel), which the caller
// records into the same stream after a barrier of its own, before the stream is submitted.
using SecondPhase = std::function<void(rt::Stream&)>;
void record_pad_backward(rt::Stream& stream, const PadGeometry& g, DType dtype, const rt::Buffer& grad_out,
                         const rt::Buffer& grad_in, BackwardAlgorithm algorithm, std::string_view kernel = {},
                         SecondPhase* second = nullptr);
// The roofline copy (copy_b4): `bytes` (rounded up to 16: allocations are) from the start of src to dst.
void record_copy(rt::Stream& stream, const rt::Buffer& src, const rt::Buffer& dst, std::uint64_t bytes);
void record_masked_fill(rt::Stream& stream, std::uint32_t n, DType dtype, const rt::Buffer& in, const rt::Buffer& mask,
                        const rt::Buffer& out, std::uint64_t fill_bits);

}  // namespace fvk::ops
