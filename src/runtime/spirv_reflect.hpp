// Just enough SPIR-V reflection to build pipeline layouts from the module itself and to hold each
// kernel's contract against it: storage-buffer bindings, push-constant block size, workgroup size.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fvk::rt {

struct SpirvInterface {
  std::vector<std::uint32_t> storage_buffer_bindings;  // set 0, ascending
  std::uint32_t push_constant_bytes = 0;
  std::uint32_t local_size_x = 1;
};

// Throws Error(Internal) on a malformed module.
SpirvInterface reflect_spirv(std::span<const std::uint32_t> words);

// A kernel's interface over its passes' modules (one pipeline layout serves them all): the union of
// their bindings, the largest push-constant block, and pass 0's workgroup size (each pass dispatches
// with its own: Device::kernel reads it from the pass's module). Throws Error(Internal) where there
// is no module.
SpirvInterface reflect_passes(std::span<const std::span<const std::uint32_t>> passes);

}  // namespace fvk::rt
