#include "judge/cost_table.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "fvk/error.hpp"

namespace fvk::judge {

std::string device_key(const DeviceInfo& d) {
  return fmt::format("{}|{}|{:04x}:{:04x}|{}", d.name, d.driver, d.vendor_id, d.device_id, d.driver_version);
}

namespace {

// `key` of `object` as a whole number from 0 to 2^32-1. nlohmann's get<std::uint32_t>() converts any
// number: it cuts a fraction, wraps a negative integer, and a float out of range is undefined
// behaviour (1e10 as a vendor_id).
std::uint32_t read_u32(const nlohmann::json& object, const char* key, const std::string& path) {
  const auto& v = object.at(key);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max())
    fail(ErrorCode::InvalidFile,
         fmt::format("{}: not a cost table: {} is {}; it must be a whole number from 0 to {}", path, key,
                     v.is_number() ? v.dump() : std::string(v.type_name()), std::numeric_limits<std::uint32_t>::max()));
  return static_cast<std::uint32_t>(v.get<std::uint64_t>());
}

}  // namespace

std::string CostTable::default_path() {
  if (const char* p = std::getenv("FVK_COST_TABLE")) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME")) return std::string(x) + "/fvk/cost_table.json";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.cache/fvk/cost_table.json";
}

CostTable CostTable::load(const std::string& path) {
  CostTable t;
  std::ifstream f(path);
  if (!f) return t;
  try {
    const auto j = nlohmann::json::parse(f);
    if (const auto version = read_u32(j, "fvk_cost_table", path); version != 1)
      fail(ErrorCode::InvalidFile, fmt::format("{}: cost table version {} is not 1", path, version));
    for (const auto& dev : j.at("devices")) {
      DeviceInfo d;
      d.name = dev.at("name").get<std::string>();
      d.driver = dev.at("driver").get<std::string>();
      d.vendor_id = read_u32(dev, "vendor_id", path);
      d.device_id = read_u32(dev, "device_id", path);
      d.driver_version = read_u32(dev, "driver_version", path);
      for (const auto& [kernel, k] : dev.at("kernels").items()) {
        MeasuredCost c;
        c.revision = k.at("revision").get<std::string>();
        c.overhead_ns = k.at("overhead_ns").get<double>();
        c.bytes_per_ns = k.at("bandwidth_gbps").get<double>();
        for (const auto& s : k.at("samples")) c.samples.emplace_back(s.at(0).get<double>(), s.at(1).get<double>());
        t.put(d, kernel, std::move(c));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorCode::InvalidFile, fmt::format("{}: not a cost table: {}", path, e.what()));
  }
  return t;
}

void CostTable::save(const std::string& path) const {
  nlohmann::json j;
  j["fvk_cost_table"] = 1;
  j["devices"] = nlohmann::json::array();
  for (const auto& [key, kernels] : entries_) {
    const auto& d = devices_.at(key);
    nlohmann::json dev{{"name", d.name},
                       {"driver", d.driver},
                       {"vendor_id", d.vendor_id},
                       {"device_id", d.device_id},
                       {"driver_version", d.driver_version}};
    dev["kernels"] = nlohmann::json::object();
    for (const auto& [kernel, c] : kernels) {
      nlohmann::json samples = nlohmann::json::array();
      for (const auto& [b, ns] : c.samples) samples.push_back({b, ns});
      dev["kernels"][kernel] = {{"revision", c.revision},
                                {"overhead_ns", c.overhead_ns},
                                {"bandwidth_gbps", c.bytes_per_ns},
                                {"samples", samples}};
    }
    j["devices"].push_back(dev);
  }
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream f(path);
  if (!f) fail(ErrorCode::InvalidFile, fmt::format("cannot write the cost table to {}", path));
  f << j.dump(2) << "\n";
}

void CostTable::put(const DeviceInfo& device, const std::string& kernel, MeasuredCost cost) {
  const auto key = device_key(device);
  devices_[key] = device;
  entries_[key][kernel] = std::move(cost);
}

std::optional<MeasuredCost> CostTable::find(const DeviceInfo& device, const std::string& kernel,
                                            const std::string& revision) const {
  const auto d = entries_.find(device_key(device));
  if (d == entries_.end()) return std::nullopt;
  const auto k = d->second.find(kernel);
  if (k == d->second.end() || k->second.revision != revision) return std::nullopt;
  return k->second;
}

std::size_t CostTable::size() const {
  std::size_t n = 0;
  for (const auto& [_, k] : entries_) n += k.size();
  return n;
}

}  // namespace fvk::judge
