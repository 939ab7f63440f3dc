// Pad forward and the constant-mode backward: both are index-map gathers through pad.comp.
#include <fmt/format.h>

#include <vector>

#include "fvk/error.hpp"
#include "ops/gather_plan.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"
#include "ops/shape_constant.hpp"

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
  const std::uint64_t width = byte_width(dtype);
  GatherShape shape = gather_shape(g, width, crop);
  const std::uint64_t n_dst = shape.n_dst;
  if (n_dst == 0) return;
  const auto sb = gather_shape_buf(g, crop);
  const std::uint64_t n_src = static_cast<std::uint64_t>(numel(crop ? g.out : g.in));
  const rt::BufferRange bindings[] = {rt::prefix(src, n_src * width), rt::prefix(dst, n_dst * width),
                                      stream.upload_small(std::as_bytes(std::span(sb)))};
  auto& device = stream.device();
  // Destinations of 1 MiB and more take the passes that pay off on large tensors.
  const GeometryPipelines pipelines(device, kernel_name, g, static_cast<std::uint32_t>(n_dst), n_dst * width);
  shape.big = takes_large_passes(device, n_dst * width);
  shape.aligned_rows = pipelines.specialized(static_cast<std::uint32_t>(GatherPass::AlignedRow));
  shape.group_rows = pipelines.specialized(static_cast<std::uint32_t>(GatherPass::Group));
  const GatherPlan plan = plan_gather(shape);
  const GatherPush push{static_cast<std::uint32_t>(plan.invocations), static_cast<std::uint32_t>(n_dst),
                        static_cast<std::uint32_t>(g.in.size()),      static_cast<std::uint32_t>(fill_bits),
                        static_cast<std::uint32_t>(fill_bits >> 32),  static_cast<std::uint32_t>(plan.edge),
                        static_cast<std::uint32_t>(plan.slots)};
  const auto pipeline = [&](GatherPass pass) -> const rt::Kernel& {
    return pipelines(static_cast<std::uint32_t>(pass));
  };
  // The two passes write disjoint chunks, so no barrier between them; the edge pass goes first, so
  // its few, slower invocations run alongside the inner pass instead of after it.
  if (plan.edge > 0) stream.dispatch(pipeline(GatherPass::Edge), bindings, bytes_of(push), plan.edge);
  // The group pass also takes its stage and pieces as constants.
  const rt::Kernel& main_pass = plan.pass == GatherPass::Group
                                    ? pipelines(static_cast<std::uint32_t>(plan.pass), group_constants(plan))
                                    : pipeline(plan.pass);
  stream.dispatch(main_pass, bindings, bytes_of(push), plan.invocations);
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
  ctx.check_tensor(input, "input");
  ctx.check_tensor(out, "out");
  const PadGeometry g = infer_pad(input.shape(), spec);
  check_out_shape(g, out.shape(), "out");
  // The kernels read input while they write out (the contracts' aliasing: none).
  if (out.storage() == input.storage())
    fail(ErrorCode::InvalidArgument,
         "out shares its storage with input; pad reads input while it writes out, so they must not overlap: give out "
         "a storage of its own (ctx.empty)");
  if (out.dtype() != input.dtype())
    fail(ErrorCode::DTypeNotAccepted,
         fmt::format("out has dtype {} but input has {}; pad keeps the dtype", name(out.dtype()), name(input.dtype())));
  ops::check_pad(ctx.runtime(), g, input.dtype());
  const std::uint64_t fill = g.mode == PadMode::Constant ? value.bits(input.dtype()) : 0;
  ops::run_timed(ctx,
                 [&](rt::Stream& s) { ops::record_pad(s, g, input.dtype(), *input.storage(), *out.storage(), fill); });
}

Tensor pad(Context& ctx, const Tensor& input, const PadSpec& spec, const Scalar& value) {
  ctx.check_tensor(input, "input");
  const PadGeometry g = infer_pad(input.shape(), spec);
  ops::check_pad(ctx.runtime(), g, input.dtype());
  const std::uint64_t fill = g.mode == PadMode::Constant ? value.bits(input.dtype()) : 0;
  Tensor out = ctx.empty(input.dtype(), g.out);
  ops::run_timed(ctx,
                 [&](rt::Stream& s) { ops::record_pad(s, g, input.dtype(), *input.storage(), *out.storage(), fill); });
  return out;
}

}  // namespace fvk
