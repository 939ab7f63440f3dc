#include "ops/launch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fvk/error.hpp"

namespace fvk::ops {

void check_binding_size(const rt::Device& device, std::uint64_t bytes, std::string_view what) {
  const std::uint64_t bound = rt::Buffer::rounded(bytes);
  if (bound > device.info().max_storage_buffer_range)
    fail(ErrorCode::DeviceLimit,
         fmt::format("{} needs a {}-byte binding but the device's maxStorageBufferRange is {} bytes; split the tensor",
                     what, bound, device.info().max_storage_buffer_range));
}

void check_dtype(DType dtype, std::span<const DType> accepted, std::string_view kernel, std::string_view what) {
  if (std::find(accepted.begin(), accepted.end(), dtype) != accepted.end()) return;
  std::string list;
  for (auto d : accepted) list += fmt::format("{}{}", list.empty() ? "" : ", ", name(d));
  fail(ErrorCode::DTypeNotAccepted,
       fmt::format("{} has dtype {}, which {} does not accept (accepted: {})", what, name(dtype), kernel, list));
}

PadGeometry coalesce(const PadGeometry& g) {
  PadGeometry c{g.mode, {}, {}, {}, {}};
  for (std::size_t a = 0; a < g.in.size(); ++a) {
    const bool plain = g.left[a] == 0 && g.right[a] == 0;
    const bool prev_plain = !c.in.empty() && c.left.back() == 0 && c.right.back() == 0;
    if (plain && prev_plain) {
      c.in.back() *= g.in[a];
      c.out.back() *= g.out[a];
      continue;
    }
    c.in.push_back(g.in[a]);
    c.out.push_back(g.out[a]);
    c.left.push_back(g.left[a]);
    c.right.push_back(g.right[a]);
  }
  return c;
}

std::vector<std::uint32_t> shape_buf(const PadGeometry& g) {
  std::vector<std::uint32_t> buf;
  for (const auto* v : {&g.in, &g.out, &g.left})
    for (auto x : *v) buf.push_back(static_cast<std::uint32_t>(x));
  return buf;
}

void run_timed(Context& ctx, const std::function<void(rt::Stream&)>& body) {
  rt::Stream stream(ctx.runtime());
  const bool timed = ctx.device_info().timestamps;
  const std::uint32_t t0 = timed ? stream.timestamp() : 0;
  body(stream);
  const std::uint32_t t1 = timed ? stream.timestamp() : 0;
  stream.barrier();
  stream.submit_and_wait();
  ctx.set_last_kernel_ns(timed ? stream.elapsed_ns(t0, t1) : 0.0);
}

}  // namespace fvk::ops
