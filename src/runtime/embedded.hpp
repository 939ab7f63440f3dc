// The EMBEDDED table: every kernel variant's SPIR-V, compiled by glslc at build time
// (kernels/CMakeLists.txt) and validated by spirv-val. Generated into the build tree only.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace fvk::embedded {

struct EmbeddedKernel {
  std::string_view name;
  std::span<const std::uint32_t> spirv;
};

const std::vector<EmbeddedKernel>& table();

}  // namespace fvk::embedded
