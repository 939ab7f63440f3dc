#include "fkc/spirv_features.hpp"

#include <algorithm>
#include <optional>

#include "fvk/error.hpp"

namespace fvk::fkc {

namespace {

constexpr std::uint32_t kMagic = 0x07230203;
constexpr std::uint32_t kOpCapability = 17;

// SPIR-V Capability enumerants (SPIR-V spec, section 3.31) and the Vulkan feature each needs.
std::optional<Feature> feature_of(std::uint32_t capability) {
  switch (capability) {
    case 9: return Feature::ShaderFloat16;                    // Float16
    case 10: return Feature::ShaderFloat64;                   // Float64
    case 11: return Feature::ShaderInt64;                     // Int64
    case 12: return Feature::ShaderBufferInt64Atomics;        // Int64Atomics
    case 22: return Feature::ShaderInt16;                     // Int16
    case 39: return Feature::ShaderInt8;                      // Int8
    case 64: return Feature::SubgroupBallot;                  // GroupNonUniformBallot
    case 65: return Feature::SubgroupShuffle;                 // GroupNonUniformShuffle
    case 4433: return Feature::StorageBuffer16BitAccess;      // StorageBuffer16BitAccess
    case 4448: return Feature::StorageBuffer8BitAccess;       // StorageBuffer8BitAccess
    case 6033: return Feature::ShaderBufferFloat32AtomicAdd;  // AtomicFloat32AddEXT
    case 6034: return Feature::ShaderBufferFloat64AtomicAdd;  // AtomicFloat64AddEXT
    default: return std::nullopt;
  }
}

}  // namespace

std::vector<Feature> spirv_required_features(std::span<const std::uint32_t> words) {
  if (words.size() < 5 || words[0] != kMagic) fail(ErrorCode::Internal, "not a SPIR-V module");
  std::vector<Feature> out;
  for (std::size_t i = 5; i < words.size();) {
    const std::uint32_t count = words[i] >> 16, opcode = words[i] & 0xffffu;
    if (count == 0 || i + count > words.size()) fail(ErrorCode::Internal, "malformed SPIR-V instruction stream");
    if (opcode == kOpCapability && count >= 2)
      if (auto f = feature_of(words[i + 1])) out.push_back(*f);
    i += count;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Feature> passes_required_features(std::span<const std::span<const std::uint32_t>> passes) {
  std::vector<Feature> out;
  for (const auto& pass : passes) {
    const auto f = spirv_required_features(pass);
    out.insert(out.end(), f.begin(), f.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fvk::fkc
