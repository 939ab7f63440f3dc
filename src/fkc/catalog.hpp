// The query API over the contracts the library ships: what the planner and the wrappers call.
//
//   const auto& c = fkc::require_contract("pad_reflect_b4");
//   c.data_input().accepts(DType::F32);     c.data_input().rank.contains(5);
//   c.data_input().layout.strided;          c.caps.awkward_layout_strategy;
//   c.determinism;  c.outputs[0].prefill;   c.caps.requires_features;
//   auto s = c.base_symbols(); s["n_out"] = 1000; s["n_in"] = 800;
//   double bytes = c.cost.bytes_moved->evaluate(s);   // cost.* are optional: ~ = to be measured
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fkc/contract.hpp"
#include "fkc/registry.hpp"

namespace fvk::fkc {

// Loaded and validated on first use; throws Error(ContractError) if a shipped contract is bad.
const ContractSet& shipped_contracts();

// nullptr when no contract names `kernel`.
const Contract* find_contract(std::string_view kernel);
// Throws Error(NoKernel) when no contract names `kernel`.
const Contract& require_contract(std::string_view kernel);
// Every contract of one op kind, in document order.
std::vector<const Contract*> contracts_for(OpKind op_kind);

// The resolved kernel_revision_hash of a shipped contract (its SPIR-V from ENTRY_POINTS).
// Throws Error(NoKernel) when its entry point resolves to no kernel.
std::string revision_hash(const Contract& contract);

// Loads the shipped contracts and checks the link registry both ways: a load error becomes the one
// problem reported. Empty when everything holds (`fvk check`).
std::vector<Problem> check_shipped();

}  // namespace fvk::fkc
