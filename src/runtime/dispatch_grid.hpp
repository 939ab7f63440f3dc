// The workgroup grid of a 1D dispatch. Kernels index their invocations in 32 bits, as
// g = gid.x + gid.y * num_workgroups.x * local_size_x, and return at g >= their bound; a grid of
// more than 2^32 invocations would wrap g and run low indices twice (harmless for a kernel that
// writes, wrong for one that adds).
#pragma once

#include <cstdint>

namespace fvk::rt {

struct DispatchGrid {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
};

// Workgroups of `local` invocations covering `invocations` (> 0): all in x where the device allows,
// else as few rows of y as the x limit needs, x balanced over them (so the grid exceeds the groups
// needed by less than one workgroup per row). Throws DeviceLimit when the device's limits cannot
// hold the grid or it would pass 2^32 invocations.
DispatchGrid dispatch_grid(std::uint64_t invocations, std::uint64_t local, std::uint64_t max_x, std::uint64_t max_y);

}  // namespace fvk::rt
