// Pad forward and the constant-mode backward: both are index-map gathers through pad.comp.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "fvk/error.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::ops {
namespace {

// pad.comp's push constants: 28 bytes.
struct GatherPush {
  std::uint32_t n_main;  // invocations of the main pass
  std::uint32_t n_dst;   // elements of the destination
  std::uint32_t rank;
  std::uint32_t fill_lo;
  std::uint32_t fill_hi;
  std::uint32_t n_edge;  // invocations of the edge pass (0: none)
  std::uint32_t slots;   // edge invocations per row boundary
};
static_assert(sizeof(GatherPush) == 28);

// pad.comp's passes (its specialization constant REGION).
constexpr std::uint32_t kOnePass = 0, kRowPass = 1, kEdgePass = 2, kInnerPass = 3, kRowPassTwo = 4, kTilePass = 5,
                        kTilePassFour = 6;
// Rows of this many bytes and more take the inner pass (with the edge pass) or the tile pass with
// four chunks per invocation; shorter ones from 16 bytes the row pass or the tile pass with two.
constexpr std::uint64_t kLongRowBytes = 512;
// Rows under this many bytes with an innermost pad or a part chunk take the tile pass on large
// destinations, longer ones the inner and edge passes. Measured on the H200 against the inner and
// edge passes: image rows of 2072 and 4144 bytes (f32, i64) 0.87-0.88x and 0.95-0.96x the time;
// audio rows (480 KB and more) 1.00-1.11x. Rows of 4145 to 8191 bytes are not in the bench sets.
constexpr std::uint64_t kTileRowBytes = 8192;

// pad.comp's shape_buf: [in_shape, out_shape, left_pad] and the divisors of the destination dims.
std::vector<std::uint32_t> gather_shape_buf(const PadGeometry& g, bool crop) {
  return with_divisors(shape_buf(g), crop ? g.in : g.out);
}

const char* mode_word(PadMode mode) {
  switch (mode) {
    case PadMode::Constant: return "const";
    case PadMode::Reflect: return "reflect";
    case PadMode::Replicate: return "replicate";
  }
  return "?";
}

void record_gather(rt::Stream& stream, const std::string& kernel_name, const PadGeometry& geometry, DType dtype,
                   const rt::Buffer& src, const rt::Buffer& dst, bool crop, std::uint64_t fill_bits) {
  const PadGeometry g = coalesce(geometry);
  const std::uint64_t n_dst = static_cast<std::uint64_t>(numel(crop ? g.in : g.out));
  if (n_dst == 0) return;
  const std::uint64_t width = byte_width(dtype);
  const std::uint64_t chunk_elems = 16 / width;
  const std::uint64_t chunks_total = (n_dst + chunk_elems - 1) / chunk_elems;
  const std::uint64_t row = static_cast<std::uint64_t>(crop ? g.in.back() : g.out.back());
  const std::uint64_t row_bytes = row * width;
  const std::uint64_t left = crop ? 0 : static_cast<std::uint64_t>(g.left.back());
  const std::uint64_t right = crop ? 0 : static_cast<std::uint64_t>(g.right.back());
  const auto sb = gather_shape_buf(g, crop);
  const rt::BufferRange bindings[] = {rt::whole(src), rt::whole(dst),
                                      stream.upload_small(std::as_bytes(std::span(sb)))};
  auto& device = stream.device();
  auto run = [&](std::uint32_t pass, std::uint64_t main_pass, std::uint64_t edge, std::uint64_t slots) {
    const GatherPush push{static_cast<std::uint32_t>(main_pass),
                          static_cast<std::uint32_t>(n_dst),
                          static_cast<std::uint32_t>(g.in.size()),
                          static_cast<std::uint32_t>(fill_bits),
                          static_cast<std::uint32_t>(fill_bits >> 32),
                          static_cast<std::uint32_t>(edge),
                          static_cast<std::uint32_t>(slots)};
    // The two passes write disjoint chunks, so no barrier between them; the edge pass goes first,
    // so its few, slower invocations run alongside the inner pass instead of after it.
    if (edge > 0) stream.dispatch(device.kernel(kernel_name, kEdgePass), bindings, bytes_of(push), edge);
    stream.dispatch(device.kernel(kernel_name, pass), bindings, bytes_of(push), main_pass);
  };
  // Destinations of 1 MiB and more take the passes that pay off on large tensors.
  const bool big = takes_large_passes(device, n_dst * width);
  if (row_bytes < 16) {
    run(kOnePass, chunks_total, 0, 0);
    return;
  }
  // Rows of whole chunks without an innermost pad: every chunk is a plain copy (or fill).
  const bool whole_rows = left + right == 0 && row_bytes % 16 == 0;
  // Rows of 16 to 8191 bytes with edges, 1 MiB of destination and more: the tile pass, which writes a
  // workgroup's plain chunks first and queues the others, or for 8-byte elements writes them itself
  // (measured on the H200 against the row pass and the inner + edge passes: rank-5 0.59-0.63x the
  // time for 1- and 2-byte elements, 0.81-0.93x for 4, 0.71-0.74x for 8 (544-byte rows); image rows
  // 0.87-0.99x for 1 and 2 bytes, before the subgroup queue took them to 0.84-0.85x of that).
  // Chunks per invocation: four on rows of 512 bytes and more of 1- to 4-byte elements, two on
  // shorter rows (where four took 1.13-1.15x the time of two) and on 8-byte elements, whose
  // invocations write their own slow chunks (two against four: rank-5 rows of 544 bytes 0.94-0.97x
  // the time, image rows of 4144 bytes 0.96-0.98x; two on image rows of 1- to 4-byte elements took
  // 1.01-1.08x; docs/data/h200_ab_tile_chunks.md).
  // Rows of whole chunks from 512 to 8191 bytes (crops, or pads of outer axes only) take it too,
  // two chunks per invocation, every chunk plain (against the inner pass's four chunks 32 apart:
  // image crops u8 0.94x the time, f32 and i64 0.98x, f16 1.00x; rank-5 i64 crops, rows of 512
  // bytes, 0.97x; on shorter rows it was 1.00-1.03x the row pass's time, which keeps them).
  const bool tile_rows = !whole_rows || row_bytes >= kLongRowBytes;
  if (big && tile_rows && row_bytes < kTileRowBytes) {
    const bool four = !whole_rows && row_bytes >= kLongRowBytes && width < 8;
    run(four ? kTilePassFour : kTilePass, grouped_invocations(chunks_total, four ? 1024 : 512), 0, 0);
    return;
  }
  // Other rows of 16 to 511 bytes (whole chunks without pads, or under 1 MiB): the row pass, which walks
  // the outer coordinates once per row (measured on the H200 against the inner and edge passes:
  // 0.73-0.99x the time on the small set, 0.83-0.95x on rank-5 crops and 1-byte pads, 0.95-1.06x
  // on the other rank-5 pads).
  if (row_bytes < kLongRowBytes) {
    // Two chunks per invocation from 1 MiB (rank-5 0.91-1.00x the time of one), else one (small
    // set: one is 0.78-0.93x the time of two).
    const std::uint64_t per_invocation = big ? 2 : 1;
    run(per_invocation == 2 ? kRowPassTwo : kRowPass, grouped_invocations(chunks_total, 256 * per_invocation), 0, 0);
    return;
  }
  // Rows of 512 bytes and more. The inner pass: four chunks 32 apart per invocation (the kernel's
  // grouping of 128 chunks).
  const std::uint64_t four_per_invocation = four_apart_invocations(chunks_total);
  // Rows of whole chunks and no pad (8192 bytes and more, or under 1 MiB of destination): every chunk
  // is an inner chunk, and the inner pass does them all.
  if (whole_rows) {
    run(kInnerPass, four_per_invocation, 0, 0);
    return;
  }
  // Edge pass: `slots` invocations per row boundary for the edge chunks, where the destination has
  // 1 MiB and more (below, a second dispatch costs more latency than the lean pass saves).
  const std::uint64_t slots = (left + right) / chunk_elems + 2;
  const std::uint64_t edge = (n_dst / row + 1) * slots;
  if (big && edge <= std::numeric_limits<std::uint32_t>::max()) {  // the kernel's index is 32-bit
    run(kInnerPass, four_per_invocation, edge, slots);
    return;
  }
  // The one pass: one chunk per invocation, or four 32 apart on rows of 8 KiB and more (not for
  // 1-byte elements, where one per invocation measured faster).
  run(kOnePass, row_bytes >= 8192 && width > 1 ? four_per_invocation : chunks_total, 0, 0);
}

}  // namespace

std::string pad_kernel(const DeviceInfo& device, PadMode mode, DType dtype) {
  return usable_build(device, fmt::format("pad_{}_b{}", mode_word(mode), byte_width(dtype)));
}

std::string backward_const_kernel(const DeviceInfo& device, DType dtype) {
  return usable_build(device, fmt::format("pad_backward_const_b{}", byte_width(dtype)));
}

void check_pad(const rt::Device& device, const PadGeometry& g, DType dtype) {
  const auto kernel = pad_kernel(device.info(), g.mode, dtype);
  check_contract_dtype(kernel, dtype, "input");
  check_contract_features(device, kernel);
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.in)) * byte_width(dtype), "input");
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.out)) * byte_width(dtype), "output");
}

void record_pad(rt::Stream& stream, const PadGeometry& g, DType dtype, const rt::Buffer& in, const rt::Buffer& out,
                std::uint64_t fill_bits, std::string_view kernel) {
  record_gather(stream, kernel.empty() ? pad_kernel(stream.device().info(), g.mode, dtype) : std::string(kernel), g,
                dtype, in, out, false, fill_bits);
}

void record_backward_const(rt::Stream& stream, const PadGeometry& g, DType dtype, const rt::Buffer& grad_out,
                           const rt::Buffer& grad_in, std::string_view kernel) {
  record_gather(stream, kernel.empty() ? backward_const_kernel(stream.device().info(), dtype) : std::string(kernel), g,
                dtype, grad_out, grad_in, true, 0);
}

}  // namespace fvk::ops

namespace fvk {

void pad_into(Context& ctx, const Tensor& input, const Tensor& out, const PadSpec& spec, const Scalar& value) {
  if (!input.defined()) fail(ErrorCode::InvalidArgument, "input tensor is empty (default-constructed)");
  if (!out.defined()) fail(ErrorCode::InvalidArgument, "out tensor is empty (default-constructed)");
  const PadGeometry g = infer_pad(input.shape(), spec);
  check_out_shape(g, out.shape(), "out");
  if (out.dtype() != input.dtype())
    fail(ErrorCode::DTypeNotAccepted,
         fmt::format("out has dtype {} but input has {}; pad keeps the dtype", name(out.dtype()), name(input.dtype())));
  ops::check_pad(ctx.runtime(), g, input.dtype());
  const std::uint64_t fill = g.mode == PadMode::Constant ? value.bits(input.dtype()) : 0;
  ops::run_timed(ctx,
                 [&](rt::Stream& s) { ops::record_pad(s, g, input.dtype(), *input.storage(), *out.storage(), fill); });
}

Tensor pad(Context& ctx, const Tensor& input, const PadSpec& spec, const Scalar& value) {
  if (!input.defined()) fail(ErrorCode::InvalidArgument, "input tensor is empty (default-constructed)");
  const PadGeometry g = infer_pad(input.shape(), spec);
  ops::check_pad(ctx.runtime(), g, input.dtype());
  const std::uint64_t fill = g.mode == PadMode::Constant ? value.bits(input.dtype()) : 0;
  Tensor out = ctx.empty(input.dtype(), g.out);
  ops::run_timed(ctx,
                 [&](rt::Stream& s) { ops::record_pad(s, g, input.dtype(), *input.storage(), *out.storage(), fill); });
  return out;
}

}  // namespace fvk
