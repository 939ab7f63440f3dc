#include "runtime/dispatch_grid.hpp"

#include <fmt/format.h>

#include "fvk/error.hpp"

namespace fvk::rt {

DispatchGrid dispatch_grid(std::uint64_t invocations, std::uint64_t local, std::uint64_t max_x, std::uint64_t max_y) {
  const std::uint64_t groups = (invocations + local - 1) / local;
  const std::uint64_t y = (groups + max_x - 1) / max_x;
  if (y > max_y)
    fail(ErrorCode::DeviceLimit, fmt::format("{} invocations exceed the device's workgroup-count limits ({} x {} "
                                             "workgroups of {})",
                                             invocations, max_x, max_y, local));
  const std::uint64_t x = (groups + y - 1) / y;
  if (x * y * local > (std::uint64_t{1} << 32))
    fail(ErrorCode::DeviceLimit,
         fmt::format("{} invocations need a grid of {} x {} workgroups of {}, more than 2^32 invocations, which the "
                     "kernels' 32-bit index cannot tell apart; split the tensor",
                     invocations, x, y, local));
  return {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)};
}

}  // namespace fvk::rt
