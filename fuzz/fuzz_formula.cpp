// Cost formulas (fkc/formula.hpp): parse, print, evaluate. Properties: the canonical text parses
// again, prints as itself, and evaluates to the same value (or fails the same way).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "fkc/formula.hpp"
#include "fuzz_common.hpp"

namespace {

using fvk::fkc::Formula;

// The value, or nullopt where evaluation throws (division by zero).
std::optional<double> value_of(const Formula& f, const fvk::fkc::SymbolValues& symbols) {
  std::optional<double> v;
  fvk::fuzz::accepts([&] { v = f.evaluate(symbols); });
  return v;
}

bool same(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return !a && !b;
  if (std::isnan(*a) || std::isnan(*b)) return std::isnan(*a) && std::isnan(*b);
  return std::memcmp(&*a, &*b, sizeof(double)) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fvk::fkc::SourceLoc loc{"contracts/fuzz.fkc.md", 7};
  std::optional<Formula> f;
  if (!fvk::fuzz::accepts([&] { f = Formula::parse(fvk::fuzz::as_text(data, size), loc, "cost.bytes_moved"); }))
    return 0;
  const std::string canonical = f->str();
  std::optional<Formula> g;
  try {
    g = Formula::parse(canonical, loc, "canonical");
  } catch (const fvk::Error& e) {
    fvk::fuzz::finding("canonical text \"" + canonical + "\" does not parse: " + e.what());
  }
  fvk::fuzz::check(g->str() == canonical, "canonical text \"" + canonical + "\" prints as \"" + g->str() + "\"");
  for (const fvk::fkc::SymbolValues& symbols :
       {fvk::fkc::SymbolValues{{"n_in", 1000}, {"n_out", 1320}, {"n", 1000}, {"dtype_bytes", 4}, {"rank", 3}},
        fvk::fkc::SymbolValues{{"n_in", 0}, {"n_out", 1}, {"n", 0.5}, {"dtype_bytes", 2}, {"rank", 8}}})
    fvk::fuzz::check(same(value_of(*f, symbols), value_of(*g, symbols)),
                     "formula and its canonical text \"" + canonical + "\" evaluate differently");
  return 0;
}
