// kernel_revision_hash: FNV-1a 64 over the provider's revision_base, the kernel's SPIR-V words (each
// pass's module in pass order, each length-prefixed) and its canonical contract (fkc/serialize.hpp,
// hash field left out). It changes when any of the three changes and never otherwise (prose,
// comments and spacing are not part of it). A kernel of one module hashes as before passes had
// modules of their own.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "fkc/contract.hpp"

namespace fvk::fkc {

// 16 lower-case hex digits.
std::string kernel_revision_hash(const Provider& provider, const Contract& contract,
                                 std::span<const std::span<const std::uint32_t>> passes);

}  // namespace fvk::fkc
