// The Judge's measured costs, keyed by device (name, driver, vendor/device id) and by kernel with its
// kernel_revision_hash. Stored as JSON where the planner reads it; an entry whose revision differs
// from the kernel's current one is stale and ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fvk/device_info.hpp"

namespace fvk::judge {

struct MeasuredCost {
  std::string revision;                            // kernel_revision_hash the measurement belongs to
  double overhead_ns = 0;                          // fitted time of an empty-ish dispatch
  double bytes_per_ns = 0;                         // fitted bandwidth (bytes_moved per ns = GB/s)
  std::vector<std::pair<double, double>> samples;  // (bytes_moved, median ns)

  double estimate_ns(double bytes_moved) const {
    return overhead_ns + (bytes_per_ns > 0 ? bytes_moved / bytes_per_ns : 0);
  }
};

class CostTable {
 public:
  // Env FVK_COST_TABLE, else $XDG_CACHE_HOME/fvk/cost_table.json, else ~/.cache/fvk/cost_table.json.
  static std::string default_path();
  // A missing file is an empty table; a malformed one is Error(InvalidFile) naming the file.
  static CostTable load(const std::string& path);
  // Writes the table beside the file `path` names (a link's target: the link stays a link), then
  // renames it over that file.
  void save(const std::string& path) const;

  void put(const DeviceInfo& device, const std::string& kernel, MeasuredCost cost);
  // nullopt when nothing was measured for this device and kernel, or it was for another revision.
  std::optional<MeasuredCost> find(const DeviceInfo& device, const std::string& kernel,
                                   const std::string& revision) const;
  std::size_t size() const;

 private:
  // device key -> kernel -> cost
  std::map<std::string, std::map<std::string, MeasuredCost>> entries_;
  std::map<std::string, DeviceInfo> devices_;
};

std::string device_key(const DeviceInfo& device);

}  // namespace fvk::judge
