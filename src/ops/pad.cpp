// Pad forward and the constant-mode backward: both are index-map gathers through pad.comp.
#include <fmt/format.h>

#include "fvk/error.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::ops {
namespace {

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
  const std::uint64_t chunks_total = (n_dst * byte_width(dtype) + 15) / 16;
  // pad.comp: one chunk per invocation, or four 32 apart on rows of 8 KiB and more (not for 1-byte
  // elements, where one per invocation measured faster).
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(crop ? g.in.back() : g.out.back()) * byte_width(dtype);
  const bool long_rows = row_bytes >= 8192 && byte_width(dtype) > 1;
  const std::uint64_t chunks = long_rows ? (chunks_total + 127) / 128 * 32 : chunks_total;
  const auto& kernel = stream.device().kernel(kernel_name);
  const auto sb = shape_buf(g);
  const rt::BufferRange bindings[] = {rt::whole(src), rt::whole(dst),
                                      stream.upload_small(std::as_bytes(std::span(sb)))};
  const PadPush push{static_cast<std::uint32_t>(chunks), static_cast<std::uint32_t>(n_dst),
                     static_cast<std::uint32_t>(g.in.size()), static_cast<std::uint32_t>(fill_bits),
                     static_cast<std::uint32_t>(fill_bits >> 32)};
  stream.dispatch(kernel, bindings, bytes_of(push), chunks);
}

}  // namespace

std::string pad_kernel(PadMode mode, DType dtype) {
  return fmt::format("pad_{}_b{}", mode_word(mode), byte_width(dtype));
}

void check_pad(const rt::Device& device, const PadGeometry& g, DType dtype) {
  const auto kernel = pad_kernel(g.mode, dtype);
  check_contract_dtype(kernel, dtype, "input");
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.in)) * byte_width(dtype), "input");
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.out)) * byte_width(dtype), "output");
}

void record_pad(rt::Stream& stream, const PadGeometry& g, DType dtype, const rt::Buffer& in, const rt::Buffer& out,
                std::uint64_t fill_bits) {
  record_gather(stream, pad_kernel(g.mode, dtype), g, dtype, in, out, false, fill_bits);
}

void record_backward_const(rt::Stream& stream, const PadGeometry& g, DType dtype, const rt::Buffer& grad_out,
                           const rt::Buffer& grad_in) {
  record_gather(stream, fmt::format("pad_backward_const_b{}", byte_width(dtype)), g, dtype, grad_out, grad_in, true, 0);
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
