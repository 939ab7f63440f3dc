#include "fkc/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "fkc/revision_hash.hpp"
#include "fkc/spirv_features.hpp"
#include "fvk/error.hpp"
#include "runtime/spirv_reflect.hpp"

namespace fvk::fkc {

const LinkRegistry ENTRY_POINTS{};

namespace {

std::vector<KernelRef> make_refs(std::span<const embedded::EmbeddedKernel> table) {
  std::vector<KernelRef> refs;
  for (const auto& k : table)
    refs.push_back({std::string(LinkRegistry::kNamespace) + "::" + std::string(k.name), k.name, k.passes});
  return refs;
}

const std::vector<KernelRef>& shipped_refs() {
  static const std::vector<KernelRef> refs = make_refs(embedded::table());
  return refs;
}

std::string feature_list(const std::vector<Feature>& fs) {
  std::vector<std::string_view> names;
  for (auto f : fs) names.push_back(to_string(f));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

void check_against_spirv(const ContractSet& set, const Contract& c, const KernelRef& ref, std::vector<Problem>& out) {
  auto problem = [&](std::string msg) { out.push_back({c.loc, std::move(msg)}); };
  try {
    const auto iface = rt::reflect_passes(ref.passes);
    std::vector<std::uint32_t> declared;
    for (const auto& b : c.link.bindings) declared.push_back(b.binding);
    if (declared != iface.storage_buffer_bindings)
      problem(fmt::format("{}: declares storage-buffer bindings [{}], the SPIR-V has [{}]", c.kernel,
                          fmt::join(declared, ", "), fmt::join(iface.storage_buffer_bindings, ", ")));
    if (c.link.push_constant_bytes != iface.push_constant_bytes)
      problem(fmt::format("{}: declares push_constant_bytes {}, the SPIR-V's block is {} bytes", c.kernel,
                          c.link.push_constant_bytes, iface.push_constant_bytes));
  } catch (const Error& e) {
    problem(fmt::format("{}: cannot reflect its SPIR-V: {}", c.kernel, e.what()));
  }
  try {
    auto declared = c.caps.requires_features;
    std::sort(declared.begin(), declared.end());
    const auto needed = passes_required_features(ref.passes);
    if (declared != needed)
      problem(fmt::format("{}: caps.requires_features is {}, the SPIR-V's capabilities need {}", c.kernel,
                          feature_list(declared), feature_list(needed)));
  } catch (const Error& e) {
    problem(fmt::format("{}: cannot read its SPIR-V capabilities: {}", c.kernel, e.what()));
  }
  if (c.pinned_revision_hash) {
    const auto actual = kernel_revision_hash(set.provider, c, ref.passes);
    if (actual != *c.pinned_revision_hash)
      problem(fmt::format("{}: pinned kernel_revision_hash {} but the kernel and contract hash to {}", c.kernel,
                          *c.pinned_revision_hash, actual));
  }
}

std::vector<Problem> check_refs(const ContractSet& set, const std::vector<KernelRef>& refs,
                                std::string_view table_name) {
  std::vector<Problem> out;
  if (set.provider.link_registry != LinkRegistry::kSymbol)
    out.push_back({set.provider.loc, fmt::format("provider.link_registry is '{}', but the library's registry is {}",
                                                 set.provider.link_registry, LinkRegistry::kSymbol)});
  std::map<std::string_view, int> seen_kernels;
  for (const auto& r : refs)
    if (++seen_kernels[r.kernel] == 2)
      out.push_back({{std::string(table_name), 0}, fmt::format("kernel {} appears twice in the table", r.kernel)});

  std::map<std::string_view, std::vector<const Contract*>> contracts_of;
  for (const auto& c : set.contracts) {
    const auto it =
        std::find_if(refs.begin(), refs.end(), [&](const KernelRef& r) { return r.entry_point == c.entry_point; });
    if (it == refs.end()) {
      out.push_back({c.entry_point_loc,
                     fmt::format("entry_point {} resolves to no kernel in {} (dangling)", c.entry_point, table_name)});
      continue;
    }
    contracts_of[it->kernel].push_back(&c);
    check_against_spirv(set, c, *it, out);
  }
  for (const auto& r : refs) {
    const auto& cs = contracts_of[r.kernel];
    if (cs.empty()) out.push_back({{std::string(table_name), 0}, fmt::format("kernel {} has no contract", r.kernel)});
    for (std::size_t i = 1; i < cs.size(); ++i)
      out.push_back(
          {cs[i]->loc, fmt::format("kernel {} has a second contract (first at {})", r.kernel, cs[0]->loc.str())});
  }
  return out;
}

}  // namespace

const KernelRef* LinkRegistry::resolve(std::string_view entry_point) const {
  for (const auto& r : shipped_refs())
    if (r.entry_point == entry_point) return &r;
  return nullptr;
}

std::span<const KernelRef> LinkRegistry::all() const { return shipped_refs(); }

std::vector<Problem> check_links(const ContractSet& set) { return check_refs(set, shipped_refs(), "EMBEDDED table"); }

std::vector<Problem> check_links(const ContractSet& set, std::span<const embedded::EmbeddedKernel> table) {
  return check_refs(set, make_refs(table), "kernel table");
}

}  // namespace fvk::fkc
