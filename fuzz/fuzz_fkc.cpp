// Contract documents (*.fkc.md): the split into front matter, sections and ```fkc blocks, the YAML,
// the strict loader and the cross-field rules; then, for what loads, everything the library does
// with a loaded contract: its canonical JSON and YAML, its formulas evaluated, and the link check
// against the embedded SPIR-V. An input without front matter of its own is loaded after the
// shipped provider front matter, as a family file is.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fkc/loader.hpp"
#include "fkc/registry.hpp"
#include "fkc/serialize.hpp"
#include "fuzz_common.hpp"

namespace {

constexpr const char* kProvider = R"(---
fkc_version: 1
provider:
  name: fuel-vulkan-kernels
  backend: Vulkan
  kernel_source: vulkan-glsl
  link_registry: fvk::fkc::ENTRY_POINTS
  revision_base: "fvk:0.1.0"
---
)";

void evaluate(const fvk::fkc::MaybeFormula& f, const fvk::fkc::SymbolValues& symbols) {
  if (!f) return;
  (void)f->str();
  fvk::fuzz::accepts([&] { (void)f->evaluate(symbols); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fvk::fkc;
  std::string text(fvk::fuzz::as_text(data, size));
  std::vector<SourceText> sources;
  if (!text.starts_with("---")) sources.push_back({"contracts/provider.fkc.md", kProvider});
  sources.push_back({"contracts/fuzz.fkc.md", std::move(text)});

  ContractSet set;
  if (!fvk::fuzz::accepts([&] { set = load_contract_set(sources); })) return 0;
  (void)to_yaml(to_json(set.provider));
  for (const auto& c : set.contracts) {
    (void)to_yaml(to_json(c, std::nullopt));
    (void)to_json(c, std::string("0123456789abcdef")).dump();
    auto symbols = c.base_symbols();
    symbols.insert({{"n_in", 1000}, {"n_out", 1320}, {"n", 1000}, {"rank", 3}});
    for (const auto* f : {&c.cost.flops, &c.cost.bytes_moved, &c.cost.overhead_ns, &c.cost.memory.device_bytes,
                          &c.cost.memory.host_bytes, &c.cost.memory.disk_bytes})
      evaluate(*f, symbols);
  }
  fvk::fuzz::accepts([&] { (void)check_links(set); });
  return 0;
}
