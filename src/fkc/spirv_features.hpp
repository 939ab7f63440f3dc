// The device features a SPIR-V module needs, read from its OpCapability instructions; held against
// a contract's caps.requires_features.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fkc/vocab.hpp"

namespace fvk::fkc {

// Sorted, unique. Capabilities that need no optional feature (Shader, ...) map to nothing.
// Throws Error(Internal) on a module too short to be SPIR-V.
std::vector<Feature> spirv_required_features(std::span<const std::uint32_t> words);
// The same over a kernel's pass modules: what any of them needs.
std::vector<Feature> passes_required_features(std::span<const std::span<const std::uint32_t>> passes);

}  // namespace fvk::fkc
