#include <fmt/format.h>

#include "fvk/error.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::ops {

namespace {
struct MaskedFillPush {
  std::uint32_t n_chunks;
  std::uint32_t n;
  std::uint32_t fill_lo;
  std::uint32_t fill_hi;
};
}  // namespace

std::string masked_fill_kernel(DType dtype) { return fmt::format("masked_fill_b{}", byte_width(dtype)); }

void check_masked_fill(const rt::Device& device, const Shape& shape, DType dtype) {
  check_contract_dtype(masked_fill_kernel(dtype), dtype, "input");
  const std::uint64_t n = static_cast<std::uint64_t>(numel(shape));
  check_binding_size(device, n * byte_width(dtype), "input");
  check_binding_size(device, n, "mask");
}

void record_masked_fill(rt::Stream& stream, std::uint32_t n, DType dtype, const rt::Buffer& in, const rt::Buffer& mask,
                        const rt::Buffer& out, std::uint64_t fill_bits) {
  if (n == 0) return;
  const std::uint64_t bytes = static_cast<std::uint64_t>(n) * byte_width(dtype);
  const std::uint64_t chunks = (bytes + 15) / 16;
  const auto& kernel = stream.device().kernel(masked_fill_kernel(dtype));
  const rt::BufferRange bindings[] = {rt::prefix(in, bytes), rt::prefix(mask, n), rt::prefix(out, bytes)};
  const MaskedFillPush push{static_cast<std::uint32_t>(chunks), n, static_cast<std::uint32_t>(fill_bits),
                            static_cast<std::uint32_t>(fill_bits >> 32)};
  stream.dispatch(kernel, bindings, bytes_of(push), chunks);
}

}  // namespace fvk::ops

namespace fvk {

Tensor masked_fill(Context& ctx, const Tensor& input, const Tensor& mask, const Scalar& value) {
  ctx.check_tensor(input, "input");
  ctx.check_tensor(mask, "mask");
  check_masked_fill(input.shape(), mask.dtype(), mask.shape());
  ops::check_masked_fill(ctx.runtime(), input.shape(), input.dtype());
  const std::uint64_t fill = value.bits(input.dtype());
  Tensor out = ctx.empty(input.dtype(), input.shape());
  ops::run_timed(ctx, [&](rt::Stream& s) {
    ops::record_masked_fill(s, static_cast<std::uint32_t>(input.numel()), input.dtype(), *input.storage(),
                            *mask.storage(), *out.storage(), fill);
  });
  return out;
}

}  // namespace fvk
