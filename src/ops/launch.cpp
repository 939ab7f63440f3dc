#include "ops/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "fkc/catalog.hpp"
#include "fvk/error.hpp"
#include "runtime/device_features.hpp"

namespace fvk::ops {

void check_binding_size(const rt::Device& device, std::uint64_t bytes, std::string_view what) {
  const std::uint64_t bound = rt::Buffer::rounded(bytes);
  if (bound > device.info().max_storage_buffer_range)
    fail(ErrorCode::DeviceLimit,
         fmt::format("{} needs a {}-byte binding but the device's maxStorageBufferRange is {} bytes; split the tensor",
                     what, bound, device.info().max_storage_buffer_range));
}

void check_contract_dtype(std::string_view kernel, DType dtype, std::string_view what) {
  if (const auto* c = fkc::find_contract(kernel); c && c->data_input().accepts(dtype)) return;
  // The family: the kernel name without its last _suffix (_b4, _f32, ...).
  const std::string family(kernel.substr(0, kernel.rfind('_')));
  std::vector<std::string> accepted;
  for (const auto& c : fkc::shipped_contracts().contracts) {
    if (c.kernel.rfind(family + "_", 0) != 0 || c.kernel.find('_', family.size() + 1) != std::string::npos) continue;
    for (auto d : c.data_input().dtypes) accepted.emplace_back(name(d));
  }
  fail(ErrorCode::DTypeNotAccepted,
       fmt::format("{} has dtype {}, which {}_* does not accept (its contracts declare: {})", what, name(dtype), family,
                   accepted.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(accepted, ", "))));
}

bool device_has(const DeviceInfo& d, fkc::Feature f) {
  const rt::FeatureFlag* flag = rt::find_feature(fkc::to_string(f));
  return flag && d.*(flag->flag);  // a feature the runtime does not detect is never enabled
}

std::vector<std::string_view> missing_features(const DeviceInfo& device, const fkc::Contract& contract) {
  std::vector<std::string_view> missing;
  for (const auto f : contract.caps.requires_features)
    if (!device_has(device, f)) missing.push_back(fkc::to_string(f));
  return missing;
}

std::string missing_features_message(std::string_view kernel, std::span<const std::string_view> missing,
                                     const DeviceInfo& device) {
  return fmt::format("{} needs device feature(s) {} which '{}' lacks", kernel, fmt::join(missing, ", "), device.name);
}

void check_contract_features(const rt::Device& device, std::string_view kernel) {
  const auto missing = missing_features(device.info(), fkc::require_contract(kernel));
  if (!missing.empty()) fail(ErrorCode::FeatureMissing, missing_features_message(kernel, missing, device.info()));
}

std::string portable_build_name(std::string_view kernel) {
  const auto cut = kernel.rfind('_');
  if (cut == std::string_view::npos) return std::string(kernel) + "_portable";
  return fmt::format("{}_portable{}", kernel.substr(0, cut), kernel.substr(cut));
}

std::string fast_build_of(std::string_view kernel) {
  constexpr std::string_view kWord = "_portable_";
  const auto at = kernel.rfind(kWord);
  if (at == std::string_view::npos || kernel.find('_', at + kWord.size()) != std::string_view::npos) return {};
  return fmt::format("{}{}", kernel.substr(0, at), kernel.substr(at + kWord.size() - 1));
}

std::string usable_build(const DeviceInfo& device, std::string_view kernel) {
  const auto* fast = fkc::find_contract(kernel);
  if (!fast || missing_features(device, *fast).empty()) return std::string(kernel);
  const std::string portable = portable_build_name(kernel);
  if (const auto* p = fkc::find_contract(portable); p && missing_features(device, *p).empty()) return portable;
  return std::string(kernel);
}

PadGeometry coalesce(const PadGeometry& g) {
  PadGeometry c{g.mode, {}, {}, {}, {}};
  for (std::size_t a = 0; a < g.in.size(); ++a) {
    const bool plain = g.left[a] == 0 && g.right[a] == 0;
    const bool prev_plain = !c.in.empty() && c.left.back() == 0 && c.right.back() == 0;
    // Kernels take each dim as a signed 32-bit coordinate range: merge only below 2^31.
    const bool fits = !c.in.empty() && c.out.back() * g.out[a] <= std::numeric_limits<std::int32_t>::max() &&
                      c.in.back() * g.in[a] <= std::numeric_limits<std::int32_t>::max();
    if (plain && prev_plain && fits) {
      c.in.back() *= g.in[a];
      c.out.back() *= g.out[a];
      continue;
    }
    c.in.push_back(g.in[a]);
    c.out.push_back(g.out[a]);
    c.left.push_back(g.left[a]);
    c.right.push_back(g.right[a]);
  }
  return c;
}

std::vector<std::uint32_t> shape_buf(const PadGeometry& g) {
  std::vector<std::uint32_t> buf;
  for (const auto* v : {&g.in, &g.out, &g.left})
    for (auto x : *v) buf.push_back(static_cast<std::uint32_t>(x));
  return buf;
}

std::vector<std::uint32_t> with_divisors(std::vector<std::uint32_t> buf, const Shape& dims) {
  std::vector<std::uint32_t> shifts;
  for (const auto dim : dims) {
    const auto d = static_cast<std::uint64_t>(dim);
    std::uint32_t l = 0;
    while ((std::uint64_t{1} << l) < d) ++l;  // ceil(log2 d)
    buf.push_back(static_cast<std::uint32_t>((std::uint64_t{1} << 32) * ((std::uint64_t{1} << l) - d) / d + 1));
    shifts.push_back(std::min<std::uint32_t>(l, 1) | (l == 0 ? 0 : l - 1) << 8);
  }
  buf.insert(buf.end(), shifts.begin(), shifts.end());
  return buf;
}

void run_timed(Context& ctx, const std::function<void(rt::Stream&)>& body) {
  rt::Stream stream(ctx.runtime());
  const bool timed = ctx.device_info().timestamps;
  const std::uint32_t t0 = timed ? stream.timestamp() : 0;
  body(stream);
  const std::uint32_t t1 = timed ? stream.timestamp() : 0;
  stream.barrier();
  stream.submit_and_wait();
  ctx.set_last_kernel_ns(timed ? stream.elapsed_ns(t0, t1) : 0.0);
}

}  // namespace fvk::ops
