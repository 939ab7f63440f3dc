// The EMBEDDED table: every kernel variant's SPIR-V, one module per pass, compiled by glslc at build
// time (kernels/CMakeLists.txt) and validated by spirv-val. Generated into the build tree only.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace fvk::embedded {

using Spirv = std::span<const std::uint32_t>;

struct EmbeddedKernel {
  std::string_view name;
  // The pass's module at the pass's index (the shader compiled with FVK_PASS = that index); one
  // module for a kernel without passes.
  std::span<const Spirv> passes;
};

const std::vector<EmbeddedKernel>& table();

}  // namespace fvk::embedded
