// Cost formulas (`flops`, `bytes_moved`, memory bytes): integer and decimal literals, the known
// symbols, + - * /, unary minus and parentheses. Parsed once at load time; evaluated by the planner
// for a concrete request.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "fkc/source_loc.hpp"

namespace fvk::fkc {

// Values for the symbols of one request, e.g. {{"n_out", 120}, {"dtype_bytes", 4}}.
using SymbolValues = std::map<std::string, double, std::less<>>;

// Every symbol a formula may use:
//   n_in        elements of the op's input (for backwards: of grad_in)
//   n_out       elements of the op's output (for backwards: of grad_out)
//   n           elements of an elementwise op (masked_fill)
//   dtype_bytes the kernel's element byte width
//   rank        number of dimensions
std::span<const std::string_view> known_symbols();

class Formula {
 public:
  struct Node;

  // Throws Error(ContractError, "loc: <what>: ...") on a syntax error or an unknown symbol.
  static Formula parse(std::string_view text, const SourceLoc& loc, std::string_view what);

  // Throws Error(InvalidArgument) when a symbol it uses is missing from `values` or on division
  // by zero.
  double evaluate(const SymbolValues& values) const;

  // Canonical text: one space around binary operators, parentheses only where needed.
  std::string str() const;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace fvk::fkc
