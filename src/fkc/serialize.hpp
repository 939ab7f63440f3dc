// The canonical form of a contract: a JSON tree in schema order with formulas in canonical text.
// It is what the revision hash covers, what `fvk contracts --json` and `fvk show` print, and it does
// not change when only comments, spacing or key order in the document change.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fkc/contract.hpp"

namespace fvk::fkc {

// `revision_hash`: the value to print for kernel_revision_hash; nullopt leaves the field out (the
// form that is hashed).
nlohmann::ordered_json to_json(const Contract& contract, const std::optional<std::string>& revision_hash);
nlohmann::ordered_json to_json(const Provider& provider);

// Block-style YAML of a JSON tree (short flat maps and scalar lists in flow style).
std::string to_yaml(const nlohmann::ordered_json& tree);

}  // namespace fvk::fkc
