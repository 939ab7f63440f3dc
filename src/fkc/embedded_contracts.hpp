// The contract documents the library ships, compiled into it (cmake/FvkContracts.cmake) so the
// binary needs no files at run time.
#pragma once

#include <span>

#include "fkc/document.hpp"

namespace fvk::fkc {

// contracts/*.fkc.md, in name order, named "contracts/<file>".
std::span<const SourceText> embedded_contract_sources();

// False when the build did not embed the text and it is read from the source tree's contracts/
// directory instead (FVK_CONTRACTS_DIR).
bool contracts_embedded();

}  // namespace fvk::fkc
