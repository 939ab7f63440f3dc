// Where a contract rule was broken: file and 1-based line, printed as `file:line`.
#pragma once

#include <string>
#include <utility>

namespace fvk::fkc {

struct SourceLoc {
  SourceLoc() = default;
  SourceLoc(std::string file_, int line_) : file(std::move(file_)), line(line_) {}

  std::string file;
  int line = 0;  // 1-based; 0 when unknown

  std::string str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

// Throws Error(ContractError, "file:line: rule").
[[noreturn]] void contract_error(const SourceLoc& loc, const std::string& rule);

}  // namespace fvk::fkc
