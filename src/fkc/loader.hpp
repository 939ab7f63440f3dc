// The strict contract loader: YAML (yaml-cpp) -> typed records. Every key is consumed and
// type-checked; unknown, missing or duplicate keys, values outside a closed vocabulary and broken
// cross-field rules (fkc/rules.hpp) are fatal, reported as Error(ContractError, "file:line: rule").
#pragma once

#include <filesystem>
#include <span>

#include "fkc/contract.hpp"
#include "fkc/document.hpp"

namespace fvk::fkc {

// Loads a set of documents: exactly one of them carries the provider front matter; kernel names
// are unique across the set. Stops at the first broken rule.
ContractSet load_contract_set(std::span<const SourceText> sources);

// Every *.fkc.md in `dir`, in name order; files are named relative to dir's parent
// (e.g. contracts/pad.fkc.md).
std::vector<SourceText> read_contract_dir(const std::filesystem::path& dir);

}  // namespace fvk::fkc
