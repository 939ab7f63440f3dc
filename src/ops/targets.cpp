#include "ops/targets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fkc/catalog.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::ops {
namespace {
constexpr DType kAccumulating[] = {DType::F32, DType::F64, DType::F16, DType::BF16};
std::string mode_word(PadMode m) { return m == PadMode::Constant ? "const" : std::string(name(m)); }
}  // namespace

std::vector<Target> all_targets() {
  std::vector<Target> out;
  for (std::size_t w : {1, 2, 4, 8}) {
    for (auto mode : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate})
      for (auto d : kAllDTypes)
        if (byte_width(d) == w)
          out.push_back({fmt::format("pad_{}_b{}", mode_word(mode), w), Op::Pad, mode, {}, d, true});
    for (auto d : kAllDTypes)
      if (byte_width(d) == w)
        out.push_back({fmt::format("pad_backward_const_b{}", w), Op::PadBackward, PadMode::Constant, {}, d, true});
    for (auto d : kAllDTypes)
      if (byte_width(d) == w) out.push_back({fmt::format("masked_fill_b{}", w), Op::MaskedFill, {}, {}, d, true});
  }
  for (auto mode : {PadMode::Reflect, PadMode::Replicate})
    for (auto d : kAccumulating) {
      out.push_back({fmt::format("pad_backward_{}_det_{}", name(mode), name(d)), Op::PadBackward, mode,
                     BackwardAlgorithm::Deterministic, d, true});
      out.push_back({fmt::format("pad_backward_{}_{}", name(mode), name(d)), Op::PadBackward, mode,
                     BackwardAlgorithm::Atomic, d, false});
    }
  for (auto d : {DType::F32, DType::I32, DType::U32}) out.push_back({"copy_b4", Op::Copy, {}, {}, d, true});
  for (std::size_t w : {1, 2, 4, 8})
    for (auto d : kAllDTypes)
      if (byte_width(d) == w) out.push_back({fmt::format("contiguize_b{}", w), Op::Contiguize, {}, {}, d, true});
  // The portable builds last, so that a search by op, mode and dtype meets the fast build first.
  const std::size_t fast_builds = out.size();
  for (std::size_t i = 0; i < fast_builds; ++i)
    if (auto portable = portable_build_name(out[i].kernel); fkc::find_contract(portable)) {
      Target t = out[i];
      t.kernel = std::move(portable);
      out.push_back(std::move(t));
    }
  return out;
}

bool is_portable(const Target& t) { return !fast_build_of(t.kernel).empty(); }

std::vector<std::string> features_portable_builds_do_without() {
  std::vector<std::string> out;
  for (const auto& c : fkc::shipped_contracts().contracts) {
    const std::string fast = fast_build_of(c.kernel);
    if (fast.empty()) continue;
    const auto& portable_needs = c.caps.requires_features;
    for (const auto f : fkc::require_contract(fast).caps.requires_features) {
      const std::string feature(fkc::to_string(f));
      if (std::find(portable_needs.begin(), portable_needs.end(), f) == portable_needs.end() &&
          std::find(out.begin(), out.end(), feature) == out.end())
        out.push_back(feature);
    }
  }
  return out;
}

std::string dispatched_kernel(const DeviceInfo& device, const Target& t) {
  switch (t.op) {
    case Op::Pad: return pad_kernel(device, t.mode, t.dtype);
    case Op::PadBackward: return pad_backward_kernel(device, t.mode, t.dtype, t.algorithm);
    default: return t.kernel;
  }
}

}  // namespace fvk::ops
