// fvk contracts | show KERNEL | check: the kernel contracts compiled into the library, one kernel
// in full, and the check that contracts and kernels match both ways.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "fkc/catalog.hpp"
#include "fkc/embedded_contracts.hpp"
#include "fkc/serialize.hpp"

namespace fvk::cli {
namespace {

// The resolved hash, or "unresolved" when the entry point finds no kernel (fvk check says why).
std::string hash_or_unresolved(const fkc::Contract& c) {
  return fkc::ENTRY_POINTS.resolve(c.entry_point) ? fkc::revision_hash(c) : std::string("unresolved");
}

std::string dtypes_text(const fkc::Contract& c) {
  std::string out;
  for (const auto& in : c.inputs) {
    std::vector<std::string_view> names;
    for (auto d : in.dtypes) names.push_back(contract_name(d));
    out += fmt::format("{}{}=[{}]", out.empty() ? "" : " ", in.name, fmt::join(names, ","));
  }
  return out;
}

int list_contracts(bool json) {
  const auto& set = fkc::shipped_contracts();
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& c : set.contracts) {
      nlohmann::ordered_json dtypes = nlohmann::ordered_json::object();
      for (const auto& in : c.inputs) {
        auto& list = dtypes[in.name] = nlohmann::ordered_json::array();
        for (auto d : in.dtypes) list.push_back(std::string(contract_name(d)));
      }
      out.push_back({{"kernel", c.kernel},
                     {"op_kind", fkc::to_string(c.op_kind)},
                     {"dtypes", dtypes},
                     {"determinism", fkc::to_string(c.determinism)},
                     {"kernel_revision_hash", hash_or_unresolved(c)}});
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  std::size_t width = 0;
  for (const auto& c : set.contracts) width = std::max(width, c.kernel.size());
  for (const auto& c : set.contracts)
    fmt::print("{:<{}}  {:<11}  {:<16}  {:<16}  {}\n", c.kernel, width, fkc::to_string(c.op_kind),
               fkc::to_string(c.determinism), hash_or_unresolved(c), dtypes_text(c));
  return 0;
}

int show_contract(const std::string& kernel, bool json) {
  const auto& c = fkc::require_contract(kernel);
  const auto tree = fkc::to_json(c, hash_or_unresolved(c));
  if (json) {
    fmt::print("{}\n", tree.dump(2));
  } else {
    fmt::print("# {} (from {})\n{}", c.kernel, c.loc.str(), fkc::to_yaml(tree));
  }
  return 0;
}

int check_contracts() {
  const auto problems = fkc::check_shipped();
  for (const auto& p : problems) fmt::print("{}\n", p.str());
  if (!problems.empty()) {
    fmt::print("fvk check: {} problem(s)\n", problems.size());
    return 1;
  }
  const auto& set = fkc::shipped_contracts();
  fmt::print(
      "fvk check: {} contracts ({}), {} embedded kernels: every contract resolves to its kernel, every "
      "kernel has one contract, bindings, push constants and device features match the SPIR-V\n",
      set.contracts.size(), fkc::contracts_embedded() ? "embedded" : "read from the source tree",
      fkc::ENTRY_POINTS.all().size());
  return 0;
}

Registrar reg([](CLI::App& app, GlobalOptions&) {
  auto* list =
      app.add_subcommand("contracts", "List every kernel contract: op kind, determinism, revision hash, dtypes");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "Print a JSON array instead");
  set_action(list, [list_json]() { return list_contracts(*list_json); });

  auto* show = app.add_subcommand("show", "Print one kernel's contract, resolved (revision hash filled in)");
  auto kernel = std::make_shared<std::string>();
  auto show_json = std::make_shared<bool>(false);
  show->add_option("KERNEL", *kernel, "Kernel name, e.g. pad_reflect_b4")->required();
  show->add_flag("--json", *show_json, "Print JSON instead of YAML");
  set_action(show, [kernel, show_json]() { return show_contract(*kernel, *show_json); });

  auto* check =
      app.add_subcommand("check", "Validate every contract and hold contracts and kernels against each other");
  set_action(check, []() { return check_contracts(); });
});

}  // namespace
}  // namespace fvk::cli
