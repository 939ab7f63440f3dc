// The geometry as specialization constants: the driver folds every dim, pad and division by a dim
// into the pass's code (a division by a dim becomes a multiply by a constant, a loop over the axes
// straight-line code with its pads and bounds as immediates), at the price of one pipeline per
// geometry, compiled on its first dispatch.
//
// Measured on the H200 against the same passes reading shape_buf (docs/data/h200_ab_shape_constants.md,
// two rounds, interleaved): rank5 forward pads 0.82-0.87x the time for 1-byte elements, 0.88-0.94x
// for 2-byte, 0.93-0.95x for 4-byte and 0.94-0.99x for 8-byte; rank5 crops 0.92-0.99x; image rows
// 0.98-1.00x, except 1-byte rows in the tile pass with four chunks per invocation (pass 6), which
// took 1.06x and so keep shape_buf. Destinations under 1 MiB keep shape_buf under Auto at first:
// the small set took 0.83-0.94x the time with the constants, but each new geometry costs a compile
// (about 57 ms on the H200, cold) against ops of 4-8 us, which would pay for itself only after
// some 80,000 ops of the geometry were it on the op's path. So it is not: once one of their passes
// has been recorded ContextOptions::specialize_after times, that pass's pipeline built for the
// geometry is compiled on the device's background thread, and the ops recorded after it is ready
// run it (GeometryBuild::WhenHot). The op's plan stays the one for shape_buf (pad.comp's aligned-
// row and group passes, which need the constants, are left to destinations of 1 MiB and more), so
// an op never depends on when a build finishes for anything but its pipelines.
//
// The deterministic backward's multi-row pass (pass 3) takes them too. It had been left out because
// the H200's driver compiled it wrong with the rank constant alone (rank_constant.cpp; it still
// reads the push-constant rank where it has no shape constants); built for one geometry it gives the
// reference's bytes there (fvk_tests, the deterministic suites with ShapeConstants::Always). On the
// H200 against pass 3 reading shape_buf (docs/data/h200_ab_det_multi_row_constants.md, two rounds):
// rank5 reflect 0.79-0.83x the time, replicate 0.71-0.90x, image 0.95-0.99x; a probe without pass 3
// had put its share of rank5's time at 22-43%.
#include "ops/shape_constant.hpp"

#include "fvk/error.hpp"
#include "ops/rank_constant.hpp"

namespace fvk::ops {
namespace {

constexpr std::uint32_t kTilePassFour = 6;  // pad.comp's tile pass with four chunks per invocation

bool is_pad_comp(std::string_view kernel) {
  return kernel.starts_with("pad_const_") || kernel.starts_with("pad_reflect_") ||
         kernel.starts_with("pad_replicate_") || kernel.starts_with("pad_backward_const_");
}
bool is_det(std::string_view kernel) {
  return kernel.starts_with("pad_backward_reflect_det") || kernel.starts_with("pad_backward_replicate_det");
}

}  // namespace

GeometryBuild shape_constants_rule(ShapeConstants setting, std::uint32_t specialize_after, std::string_view kernel,
                                   std::uint32_t pass, std::uint32_t rank, std::uint64_t dst_bytes, std::size_t built) {
  if (rank == 0 || rank > 7) return GeometryBuild::Never;
  if (!is_pad_comp(kernel) && !is_det(kernel)) return GeometryBuild::Never;
  switch (setting) {
    case ShapeConstants::Never: return GeometryBuild::Never;
    case ShapeConstants::Always: return GeometryBuild::Now;
    case ShapeConstants::Auto: break;
  }
  if (is_pad_comp(kernel) && pass == kTilePassFour && kernel.ends_with("_b1")) return GeometryBuild::Never;
  if (dst_bytes >= (std::uint64_t{1} << 20))
    return built < kMaxShapePipelines ? GeometryBuild::Now : GeometryBuild::Never;
  // Hot builds have a budget of their own (kMaxHotPipelines, kept by Device::kernel_when_hot).
  return specialize_after > 0 ? GeometryBuild::WhenHot : GeometryBuild::Never;
}

GeometryBuild geometry_build(const rt::Device& device, std::string_view kernel, std::uint32_t pass, std::uint32_t rank,
                             std::uint64_t dst_bytes) {
  return shape_constants_rule(device.shape_constants(), device.specialize_after(), kernel, pass, rank, dst_bytes,
                              device.pipelines_with_constants());
}

std::vector<rt::SpecConstant> shape_constants(const PadGeometry& g, std::uint32_t n_dst) {
  if (g.in.empty() || g.in.size() > 7)
    fail(ErrorCode::Internal, "shape constants: the kernels take ranks 1 to 7 as constants");
  std::vector<rt::SpecConstant> c{{2, 1}, {3, n_dst}};
  for (std::uint32_t a = 0; a < g.in.size(); ++a) {
    c.push_back({8 + a, static_cast<std::uint32_t>(g.in[a])});
    c.push_back({16 + a, static_cast<std::uint32_t>(g.out[a])});
    c.push_back({24 + a, static_cast<std::uint32_t>(g.left[a])});
  }
  return c;
}

bool GeometryPipelines::specialized(std::uint32_t pass) const {
  return geometry_build(device_, kernel_, pass, static_cast<std::uint32_t>(g_.in.size()), dst_bytes_) ==
         GeometryBuild::Now;
}

std::vector<rt::SpecConstant> group_constants(const GatherPlan& plan) {
  return {{40, static_cast<std::uint32_t>(plan.stage_words)}, {41, static_cast<std::uint32_t>(plan.pieces)}};
}

const rt::Kernel& GeometryPipelines::operator()(std::uint32_t pass) const {
  const auto rank = static_cast<std::uint32_t>(g_.in.size());
  switch (geometry_build(device_, kernel_, pass, rank, dst_bytes_)) {
    case GeometryBuild::Now: return built_for_geometry(pass, {});
    case GeometryBuild::WhenHot:
      if (constants_.empty()) constants_ = shape_constants(g_, n_dst_);
      if (const rt::Kernel* k =
              device_.kernel_when_hot(kernel_, pass, rank, constants_, device_.specialize_after(), kMaxHotPipelines))
        return *k;
      break;
    case GeometryBuild::Never: break;
  }
  return pass_kernel(device_, kernel_, pass, rank);
}

const rt::Kernel& GeometryPipelines::operator()(std::uint32_t pass, std::span<const rt::SpecConstant> extra) const {
  if (!specialized(pass)) fail(ErrorCode::Internal, "extra constants on a pass not built for its geometry");
  return built_for_geometry(pass, extra);
}

const rt::Kernel& GeometryPipelines::built_for_geometry(std::uint32_t pass,
                                                        std::span<const rt::SpecConstant> extra) const {
  if (constants_.empty()) constants_ = shape_constants(g_, n_dst_);
  const auto rank = static_cast<std::uint32_t>(g_.in.size());
  if (extra.empty()) return device_.kernel(kernel_, pass, rank, constants_);
  std::vector<rt::SpecConstant> all = constants_;
  all.insert(all.end(), extra.begin(), extra.end());
  return device_.kernel(kernel_, pass, rank, all);
}

}  // namespace fvk::ops
