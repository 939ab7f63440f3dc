// Which pipelines of pad.comp and of the deterministic backward are built for one geometry, its
// dims, pads and element count given as specialization constants (kernels/shape_constants.glsl):
// the one place that decides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fvk/pad_spec.hpp"
#include "ops/gather_plan.hpp"
#include "runtime/device.hpp"

namespace fvk::ops {

// Under ShapeConstants::Auto, no further pipeline is built for one geometry on its first dispatch
// once a device holds this many (each is a driver compile on first use and device memory for as
// long as it lives), and no further one is queued for a hot geometry once this many have been
// (kMaxHotPipelines): two budgets, so that small hot geometries never take a large one's.
inline constexpr std::size_t kMaxShapePipelines = 512;
inline constexpr std::size_t kMaxHotPipelines = 512;

// When a pass's pipeline is built for its geometry.
enum class GeometryBuild {
  Never,    // it reads the geometry at run time
  Now,      // on the op's first dispatch, which waits for the compile; the op's plan may count on it
  WhenHot,  // in the background once the geometry is hot (Device::kernel_when_hot); the op's plan
            // never counts on it, since the pipeline that reads the geometry runs until then
};

// The rule: when pass `pass` of kernel `kernel` is built for the geometry of a destination of
// `dst_bytes` with `rank` axes (after merging neighbouring unpadded axes) under `setting` and
// `specialize_after` (ContextOptions), on a device that holds `built` pipelines built with
// constants besides the rank on their first dispatch (Device::pipelines_with_constants).
GeometryBuild shape_constants_rule(ShapeConstants setting, std::uint32_t specialize_after, std::string_view kernel,
                                   std::uint32_t pass, std::uint32_t rank, std::uint64_t dst_bytes, std::size_t built);
// The rule on `device` (its settings and pipelines).
GeometryBuild geometry_build(const rt::Device& device, std::string_view kernel, std::uint32_t pass, std::uint32_t rank,
                             std::uint64_t dst_bytes);

// The constants of kernels/shape_constants.glsl for geometry `g` (merged, rank 1 to 7) whose
// destination holds `n_dst` elements: the same dims and pads as shape_buf(g).
std::vector<rt::SpecConstant> shape_constants(const PadGeometry& g, std::uint32_t n_dst);

// The constants the group pass takes besides the geometry's, from its plan: pad.comp's STAGE_WORDS
// (40) and GROUP_PIECES (41).
std::vector<rt::SpecConstant> group_constants(const GatherPlan& plan);

// The pipelines of one op's passes of `kernel` for geometry `g` (merged) and a destination of `n_dst`
// elements and `dst_bytes` bytes: each pass's built for the geometry where geometry_build says so
// (the constants worked out once, on the first such pass), else with the rank alone where
// rank_constant says so (pass_kernel). Holds references: lives for the recording of one op.
class GeometryPipelines {
 public:
  GeometryPipelines(rt::Device& device, const std::string& kernel, const PadGeometry& g, std::uint32_t n_dst,
                    std::uint64_t dst_bytes)
      : device_(device), kernel_(kernel), g_(g), n_dst_(n_dst), dst_bytes_(dst_bytes) {}

  // Whether pass `pass`'s pipeline is built for the geometry on its first dispatch
  // (GeometryBuild::Now), which the op's plan may count on. A pass built when hot may run built
  // for the geometry too, with the same bytes, but this says false for it.
  bool specialized(std::uint32_t pass) const;
  const rt::Kernel& operator()(std::uint32_t pass) const;
  // Pass `pass` built for the geometry with the constants `extra` besides (ids the geometry's
  // constants do not use); pass `pass` must be specialized.
  const rt::Kernel& operator()(std::uint32_t pass, std::span<const rt::SpecConstant> extra) const;

 private:
  // Pass `pass` built for the geometry with `extra` besides, once specialized(pass) is known.
  const rt::Kernel& built_for_geometry(std::uint32_t pass, std::span<const rt::SpecConstant> extra) const;

  rt::Device& device_;
  const std::string& kernel_;
  const PadGeometry& g_;
  std::uint32_t n_dst_;
  std::uint64_t dst_bytes_;
  mutable std::vector<rt::SpecConstant> constants_;  // empty until a pass needs them
};

}  // namespace fvk::ops
