// The optional device features fvk detects, by their Vulkan names (the spellings of the contracts'
// requires_features), each with the DeviceInfo flag that says whether the device has it. One table
// for the wrappers' feature checks and for ContextOptions::disabled_features.
#pragma once

#include <string_view>

#include "fvk/device_info.hpp"

namespace fvk::rt {

struct FeatureFlag {
  std::string_view name;
  bool DeviceInfo::*flag;
};

inline constexpr FeatureFlag kFeatureFlags[] = {
    {"shaderInt64", &DeviceInfo::shader_int64},
    {"shaderFloat64", &DeviceInfo::shader_float64},
    {"shaderInt16", &DeviceInfo::shader_int16},
    {"shaderBufferInt64Atomics", &DeviceInfo::buffer_int64_atomics},
    {"shaderBufferFloat32AtomicAdd", &DeviceInfo::buffer_float32_atomic_add},
    {"shaderBufferFloat64AtomicAdd", &DeviceInfo::buffer_float64_atomic_add},
    {"subgroupBallot", &DeviceInfo::subgroup_ballot},
    {"subgroupShuffle", &DeviceInfo::subgroup_shuffle},
};

// The flag of the feature called `name`; nullptr for a feature fvk does not detect (and so never
// enables).
inline const FeatureFlag* find_feature(std::string_view name) {
  for (const auto& f : kFeatureFlags)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace fvk::rt
