// The Judge's cost table (judge/cost_table.hpp), a JSON file the planner reads at start-up. Property
// of an accepted table: what save() writes loads again with the same entries.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "fuzz_common.hpp"
#include "judge/cost_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fvk::fuzz::MemFile in("fuzz_cost_in");
  static fvk::fuzz::MemFile out("fuzz_cost_out");
  in.assign(data, size);
  std::optional<fvk::judge::CostTable> table;
  if (!fvk::fuzz::accepts([&] { table = fvk::judge::CostTable::load(in.path()); })) return 0;
  fvk::DeviceInfo device;
  device.name = "NVIDIA H100 80GB HBM3";
  (void)table->find(device, "pad_reflect_b4", "0123456789abcdef");
  try {
    table->save(out.path());
    const auto again = fvk::judge::CostTable::load(out.path());
    fvk::fuzz::check(again.size() == table->size(), "a saved cost table loads with other entries");
  } catch (const fvk::Error& e) {
    fvk::fuzz::finding(std::string("an accepted cost table does not round-trip: ") + e.what());
  }
  return 0;
}
