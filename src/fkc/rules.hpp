// Cross-field rules of one contract, checked after every key has been read and typed: things no
// single key can get wrong on its own (byte width vs dtypes, bitwise vs bit_stable, accumulate vs
// in_place, references between inputs, outputs, params and bindings).
#pragma once

#include <map>
#include <string>

#include "fkc/contract.hpp"

namespace fvk::fkc {

// Lines of every key the loader consumed, by path ("precision.audited", "accept.inputs[0].dtypes").
struct KeyLines {
  std::string file;
  std::map<std::string, int> lines;
  int fallback = 0;
  SourceLoc at(const std::string& path) const;
};

// Element byte width from the kernel name: `_b1/_b2/_b4/_b8`, or a dtype suffix (`_f32`, `_bf16`).
// Throws ContractError when the name carries neither.
std::uint32_t element_bytes_from_name(const std::string& kernel, const SourceLoc& loc);

// Throws Error(ContractError, "file:line: rule") at the first rule broken.
void check_contract_rules(const Contract& contract, const Provider& provider, const KeyLines& keys);

}  // namespace fvk::fkc
