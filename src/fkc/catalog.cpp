#include "fkc/catalog.hpp"

#include "fkc/embedded_contracts.hpp"
#include "fkc/loader.hpp"
#include "fkc/revision_hash.hpp"
#include "fvk/error.hpp"

namespace fvk::fkc {

const ContractSet& shipped_contracts() {
  static const ContractSet set = load_contract_set(embedded_contract_sources());
  return set;
}

const Contract* find_contract(std::string_view kernel) { return shipped_contracts().find(kernel); }

const Contract& require_contract(std::string_view kernel) {
  if (const auto* c = find_contract(kernel)) return *c;
  fail(ErrorCode::NoKernel, "no contract for kernel '" + std::string(kernel) + "'");
}

std::vector<const Contract*> contracts_for(OpKind op_kind) {
  std::vector<const Contract*> out;
  for (const auto& c : shipped_contracts().contracts)
    if (c.op_kind == op_kind) out.push_back(&c);
  return out;
}

std::string revision_hash(const Contract& contract) {
  const auto* ref = ENTRY_POINTS.resolve(contract.entry_point);
  if (!ref) fail(ErrorCode::NoKernel, "entry point " + contract.entry_point + " resolves to no embedded kernel");
  return kernel_revision_hash(shipped_contracts().provider, contract, ref->passes);
}

std::vector<Problem> check_shipped() {
  try {
    return check_links(shipped_contracts());
  } catch (const Error& e) {
    Problem load_error;
    load_error.message = e.what();
    return {load_error};
  }
}

}  // namespace fvk::fkc
