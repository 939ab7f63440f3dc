#include "fkc/source_loc.hpp"

#include "fvk/error.hpp"

namespace fvk::fkc {

void contract_error(const SourceLoc& loc, const std::string& rule) {
  fail(ErrorCode::ContractError, loc.str() + ": " + rule);
}

}  // namespace fvk::fkc
