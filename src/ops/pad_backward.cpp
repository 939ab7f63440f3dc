// Pad backward: constant mode is a gather (pad.comp, MODE 3); reflect / replicate either gather
// deterministically (pad_backward_det.comp) or scatter with atomics (pad_backward_atomic.comp).
#include <fmt/format.h>

#include <algorithm>

#include "fvk/error.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::ops {

namespace {}  // namespace

std::string pad_backward_kernel(PadMode mode, DType dtype, BackwardAlgorithm algorithm) {
  if (mode == PadMode::Constant) return fmt::format("pad_backward_const_b{}", byte_width(dtype));
  return fmt::format("pad_backward_{}{}_{}", mode == PadMode::Reflect ? "reflect" : "replicate",
                     algorithm == BackwardAlgorithm::Deterministic ? "_det" : "", name(dtype));
}

void check_pad_backward(const rt::Device& device, const PadGeometry& g, DType dtype, BackwardAlgorithm algorithm) {
  const auto kernel = pad_backward_kernel(g.mode, dtype, algorithm);
  check_contract_dtype(kernel, dtype, "grad_out");
  check_contract_features(device, kernel);
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.out)) * byte_width(dtype), "grad_out");
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.in)) * byte_width(dtype), "grad_in");
}

void record_pad_backward(rt::Stream& stream, const PadGeometry& geometry, DType dtype, const rt::Buffer& grad_out,
                         const rt::Buffer& grad_in, BackwardAlgorithm algorithm) {
  if (geometry.mode == PadMode::Constant) {
    record_backward_const(stream, geometry, dtype, grad_out, grad_in);
    return;
  }
  const PadGeometry g = coalesce(geometry);
  const std::uint64_t n_in = static_cast<std::uint64_t>(numel(g.in));
  const std::uint64_t n_out = static_cast<std::uint64_t>(numel(g.out));
  if (n_in == 0) return;
  const auto& kernel = stream.device().kernel(pad_backward_kernel(g.mode, dtype, algorithm));
  const auto sb = shape_buf(g);
  const rt::BufferRange bindings[] = {rt::whole(grad_out), rt::whole(grad_in),
                                      stream.upload_small(std::as_bytes(std::span(sb)))};
  const auto rank = static_cast<std::uint32_t>(g.in.size());
  if (algorithm == BackwardAlgorithm::Atomic) {
    // The kernel only accumulates: grad_in starts at +0.0 in every format.
    stream.fill(grad_in, 0);
    stream.barrier();
    const PadPush push{static_cast<std::uint32_t>(n_out), static_cast<std::uint32_t>(n_in), rank, 0, 0};
    stream.dispatch(kernel, bindings, bytes_of(push), n_out);
  } else {
    const std::uint64_t chunks = (n_in * byte_width(dtype) + 15) / 16;  // 16-byte chunks of grad_in
    const PadPush push{static_cast<std::uint32_t>(chunks), static_cast<std::uint32_t>(n_in), rank, 0, 0};
    stream.dispatch(kernel, bindings, bytes_of(push), chunks);
  }
}

}  // namespace fvk::ops

namespace fvk {

Tensor pad_backward(Context& ctx, const Tensor& grad_out, const PadSpec& spec, BackwardAlgorithm algorithm) {
  if (!grad_out.defined()) fail(ErrorCode::InvalidArgument, "grad_out tensor is empty (default-constructed)");
  const PadGeometry g = infer_pad_backward(grad_out.shape(), spec);
  ops::check_pad_backward(ctx.runtime(), g, grad_out.dtype(), algorithm);
  Tensor grad_in = ctx.empty(grad_out.dtype(), g.in);
  ops::run_timed(ctx, [&](rt::Stream& s) {
    ops::record_pad_backward(s, g, grad_out.dtype(), *grad_out.storage(), *grad_in.storage(), algorithm);
  });
  return grad_in;
}

}  // namespace fvk
