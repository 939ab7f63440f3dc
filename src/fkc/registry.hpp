// The link registry: entry point symbol -> kernel (name, SPIR-V). The provider front matter names
// it (`link_registry: fvk::fkc::ENTRY_POINTS`); check_links holds the contracts and the EMBEDDED
// kernel table against each other, both ways, and each contract against its SPIR-V.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fkc/contract.hpp"
#include "runtime/embedded.hpp"

namespace fvk::fkc {

struct KernelRef {
  std::string entry_point;  // fvk::fkc::<kernel>
  std::string_view kernel;
  std::span<const embedded::Spirv> passes;  // one SPIR-V module per pass
};

class LinkRegistry {
 public:
  static constexpr std::string_view kSymbol = "fvk::fkc::ENTRY_POINTS";
  static constexpr std::string_view kNamespace = "fvk::fkc";

  // The kernel behind an entry point, or nullptr.
  const KernelRef* resolve(std::string_view entry_point) const;
  // Every embedded kernel, in table order.
  std::span<const KernelRef> all() const;
};

// Constant-initialized; its table is built from embedded::table() on first use.
extern const LinkRegistry ENTRY_POINTS;

struct Problem {
  Problem() = default;
  Problem(SourceLoc loc_, std::string message_) : loc(std::move(loc_)), message(std::move(message_)) {}

  SourceLoc loc;
  std::string message;
  std::string str() const { return loc.file.empty() ? message : loc.str() + ": " + message; }
};

// Every contract resolves to exactly one embedded kernel and every embedded kernel has exactly one
// contract; per contract: bindings and push-constant size match those of its passes' SPIR-V (the
// union of bindings, the largest block), requires_features matches their capabilities (all passes'),
// a pinned kernel_revision_hash matches. Empty when all holds.
std::vector<Problem> check_links(const ContractSet& set);
// The same against an explicit kernel table (tests).
std::vector<Problem> check_links(const ContractSet& set, std::span<const embedded::EmbeddedKernel> table);

}  // namespace fvk::fkc
