#include "judge/cost_table.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/link_target.hpp"
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

// `v` (`what` of `where`) as a finite number of at least 0 (a time, a byte count or a bandwidth): a table
// with a negative or infinite cost would steer the planner to or away from a kernel whatever it
// measured.
double read_measure(const nlohmann::json& v, std::string_view what, const std::string& path, const std::string& where) {
  const double x = v.is_number() ? v.get<double>() : -1;
  if (!v.is_number() || !std::isfinite(x) || x < 0)
    fail(ErrorCode::InvalidFile,
         fmt::format("{}: not a cost table: {} of {} is {}; it must be a finite number of at least 0", path, what,
                     where, v.is_number() ? v.dump() : std::string(v.type_name())));
  return x;
}

void require(bool ok, const std::string& path, const std::string& rule) {
  if (!ok) fail(ErrorCode::InvalidFile, fmt::format("{}: not a cost table: {}", path, rule));
}

}  // namespace

std::string CostTable::default_path() {
  // Empty variables count as unset (an empty path would name no file).
  const auto env = [](const char* name) -> const char* {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
  };
  if (const char* p = env("FVK_COST_TABLE")) return p;
  if (const char* x = env("XDG_CACHE_HOME")) return std::string(x) + "/fvk/cost_table.json";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.cache/fvk/cost_table.json";
}

CostTable CostTable::load(const std::string& path) {
  CostTable t;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) return t;
  if (ec) fail(ErrorCode::InvalidFile, fmt::format("{}: cannot look at the cost table: {}", path, ec.message()));
  if (status.type() != std::filesystem::file_type::regular)
    fail(ErrorCode::InvalidFile, fmt::format("{}: not a cost table: it is not a file (a folder?)", path));
  std::ifstream f(path);
  if (!f) fail(ErrorCode::InvalidFile, fmt::format("{}: cannot read the cost table", path));
  try {
    const auto j = nlohmann::json::parse(f);
    require(j.is_object(), path, "its top level must be an object");
    if (const auto version = read_u32(j, "fvk_cost_table", path); version != 1)
      fail(ErrorCode::InvalidFile, fmt::format("{}: cost table version {} is not 1", path, version));
    require(j.at("devices").is_array(), path, "devices must be an array");
    for (const auto& dev : j.at("devices")) {
      DeviceInfo d;
      d.name = dev.at("name").get<std::string>();
      d.driver = dev.at("driver").get<std::string>();
      d.vendor_id = read_u32(dev, "vendor_id", path);
      d.device_id = read_u32(dev, "device_id", path);
      d.driver_version = read_u32(dev, "driver_version", path);
      require(dev.at("kernels").is_object(), path, "a device's kernels must be an object keyed by kernel name");
      for (const auto& [kernel, k] : dev.at("kernels").items()) {
        MeasuredCost c;
        c.revision = k.at("revision").get<std::string>();
        c.overhead_ns = read_measure(k.at("overhead_ns"), "overhead_ns", path, kernel);
        c.bytes_per_ns = read_measure(k.at("bandwidth_gbps"), "bandwidth_gbps", path, kernel);
        const auto& samples = k.at("samples");
        require(samples.is_array(), path, fmt::format("samples of {} must be an array of [bytes, ns] pairs", kernel));
        // No samples: a Judge of before 57f6db7 wrote such entries for a ladder without rungs, with
        // a cost of 0 ns the planner then preferred. They were never measurements: left out.
        if (samples.empty()) continue;
        for (const auto& s : samples) {
          require(s.is_array() && s.size() == 2, path,
                  fmt::format("a sample of {} is {}; it must be a pair [bytes, ns]", kernel, s.dump()));
          c.samples.emplace_back(read_measure(s[0], "bytes", path, kernel + "'s sample"),
                                 read_measure(s[1], "ns", path, kernel + "'s sample"));
        }
        t.put(d, kernel, std::move(c));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorCode::InvalidFile, fmt::format("{}: not a cost table: {}", path, e.what()));
  } catch (const Error& e) {
    // The rules above name the file and the rule; say the way out too.
    fail(e.code(), fmt::format("{} (delete the file, or point FVK_COST_TABLE elsewhere, and run fvk judge for a "
                               "new one)",
                               e.message()));
  } catch (const std::ios_base::failure& e) {
    fail(ErrorCode::InvalidFile, fmt::format("{}: cannot read the cost table: {}", path, e.what()));
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
  if (path.empty()) fail(ErrorCode::InvalidArgument, "the cost table's path is empty");
  const std::string text = j.dump(2) + "\n";  // before any file is made: dump may throw
  std::error_code ec;
  const std::filesystem::path target = link_target(path);  // a link stays a link
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  // Written beside it under a name of this process's own, then renamed over it: a run cut short
  // leaves the old table, not half of one (which every op would then refuse to read), and two Judges
  // at once do not write one temporary file. On any failure the temporary goes.
  const std::string temporary = fmt::format("{}.{}.tmp", target.string(), ::getpid());
  const auto fail_writing = [&](const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    fail(ErrorCode::InvalidFile, fmt::format("cannot write the cost table to {}: {}", path, why));
  };
  {
    std::ofstream f(temporary);
    if (!f) fail_writing(fmt::format("cannot create {} beside it", temporary));
    f << text;
    f.close();
    if (!f) fail_writing(fmt::format("writing {} failed", temporary));
  }
  std::filesystem::rename(temporary, target, ec);
  if (ec) fail_writing(ec.message());
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
