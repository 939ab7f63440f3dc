#include "gpu_fixture.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <memory>
#include <string>

#include "selftest/harness.hpp"

namespace fvk::testing {

Context& shared_context() {
  static Context ctx;
  return ctx;
}

Context& poisoned_context() {
  static Context ctx([] {
    ContextOptions o;
    o.poison_new_tensors = true;
    return o;
  }());
  return ctx;
}

namespace {

// The contexts context_for keeps, never destroyed (see there).
std::map<std::string, std::unique_ptr<Context>>& kept_contexts() {
  static auto& contexts = *new std::map<std::string, std::unique_ptr<Context>>;
  return contexts;
}

// After the last test, the kept contexts' background builds (ContextOptions::specialize_after) are
// let finish, so that none is still compiling while the process exits and the driver goes.
class FinishBackgroundBuilds : public ::testing::Environment {
 public:
  void TearDown() override {
    for (auto& [key, ctx] : kept_contexts()) ctx->finish_background_builds();
  }
};
[[maybe_unused]] const auto* const finish_background_builds =
    ::testing::AddGlobalTestEnvironment(new FinishBackgroundBuilds);

}  // namespace

Context& context_for(const ops::Target& target, const ContextOptions& options) {
  const ContextOptions o = selftest::context_options(target, options);
  const bool plain = o.disabled_features.empty() && !o.always_split_passes && !o.runtime_rank &&
                     o.shape_constants == ShapeConstants::Auto &&
                     o.specialize_after == ContextOptions{}.specialize_after && o.max_workgroups_x == 0 &&
                     !o.capture_pipeline_statistics && o.device.empty() && !o.validation.has_value() && !o.check_bounds;
  if (plain && !o.poison_new_tensors) return shared_context();
  if (plain) return poisoned_context();
  // Never destroyed: a static map would outlive the validation layer, which the loader opens while
  // the first of these contexts is made (after the map exists), so its destructor would run after
  // the layer's. (The function statics above are registered once their context is made.)
  auto& contexts = kept_contexts();
  const std::string key = fmt::format(
      "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", fmt::join(o.disabled_features, ","), o.always_split_passes, o.runtime_rank,
      static_cast<int>(o.shape_constants), o.specialize_after, o.poison_new_tensors, o.max_workgroups_x,
      o.capture_pipeline_statistics, o.device, o.validation.has_value() ? int(*o.validation) : -1, o.check_bounds);
  auto& slot = contexts[key];
  if (!slot) slot = std::make_unique<Context>(o);
  return *slot;
}

}  // namespace fvk::testing
