// fvk selftest: every shipped kernel, every accepted dtype, a spread of shapes, on the chosen device,
// held against the CPU reference. Exit code 1 on any mismatch.
#include <fmt/format.h>

#include <map>
#include <optional>

#include "cli_util.hpp"
#include "commands.hpp"
#include "judge/bench.hpp"
#include "selftest/harness.hpp"

namespace fvk::cli {
namespace {

Registrar reg([](CLI::App& app, GlobalOptions& global) {
  auto* sub = app.add_subcommand("selftest", "Run every kernel x dtype against the CPU reference");
  auto filter = std::make_shared<std::string>();
  sub->add_option("--kernel", *filter, "only kernels whose name contains one of these comma-separated words");
  set_action(sub, [&global, filter]() {
    std::vector<std::string> names;
    for (const auto& t : selftest::all_targets()) names.push_back(t.kernel);
    require_kernel_match(*filter, names);
    Context ctx = make_context(global);
    // The portable builds run where the public ops choose them: on a context without the features
    // they do without (opened at the first portable target).
    std::optional<Context> portable_ctx;
    auto context_for = [&](const selftest::Target& t) -> Context& {
      if (!ops::is_portable(t)) return ctx;
      if (!portable_ctx) portable_ctx.emplace(selftest::context_options(t, context_options(global)));
      return *portable_ctx;
    };
    fmt::print("device: {} ({}, {})\n\n", ctx.device_info().name, ctx.device_info().type, ctx.device_info().driver);
    fmt::print("{:<30} {:<5} {:>5}  {:<10} {:>9}\n", "kernel", "dtype", "cases", "bit-exact", "GB/s");
    int failures = 0, total = 0, rows = 0, skipped = 0;
    std::size_t kernels = 0;
    std::map<std::string, bool> kernel_ok;
    for (const auto& target : selftest::all_targets()) {
      if (!judge::matches_filter(target.kernel, *filter)) continue;
      Context& target_ctx = context_for(target);
      if (const auto missing = selftest::missing_features(target_ctx, target); !missing.empty()) {
        fmt::print("{:<30} {:<5} {:>5}  skipped: the device lacks {}\n", target.kernel, name(target.dtype), 0,
                   missing.front());
        ++skipped;
        continue;
      }
      bool ok = true;
      std::string detail;
      double best_gbps = 0;
      const auto cases = selftest::cases_for(target, true);
      for (const auto& c : cases) {
        const auto o = selftest::run_case(target_ctx, target, c);
        ++total;
        if (!o.pass && ok) detail = fmt::format("shape {}: {}", to_string(c.shape), o.detail);
        ok = ok && o.pass;
        if (o.gpu_ns > 0) best_gbps = std::max(best_gbps, static_cast<double>(o.bytes) / o.gpu_ns);
      }
      failures += ok ? 0 : 1;
      ++rows;
      if (!kernel_ok.count(target.kernel)) ++kernels;
      kernel_ok[target.kernel] = kernel_ok.count(target.kernel) ? kernel_ok[target.kernel] && ok : ok;
      const char* verdict = ok ? (target.exact ? "yes" : "in bound") : "NO";
      fmt::print("{:<30} {:<5} {:>5}  {:<10} {:>9.2f}\n", target.kernel, name(target.dtype), cases.size(), verdict,
                 best_gbps);
      if (!ok) fmt::print("    first mismatch: {}\n", detail);
    }
    auto messages = ctx.validation_messages();
    if (portable_ctx)
      for (auto& m : portable_ctx->validation_messages()) messages.push_back(std::move(m));
    for (const auto& m : messages) fmt::print("validation: {}\n", m);
    fmt::print("\n{} kernels, {} kernel x dtype rows, {} cases: {} rows failed{}{}\n", kernels, rows, total, failures,
               skipped ? fmt::format(", {} rows skipped (device features)", skipped) : "",
               messages.empty() ? "" : fmt::format(", {} validation messages", messages.size()));
    return failures == 0 && messages.empty() ? 0 : 1;
  });
});

}  // namespace
}  // namespace fvk::cli
