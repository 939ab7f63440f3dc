// fvk judge: measure every kernel's cost on this device and store it where the planner reads it.
// fvk bench: realistic shapes, GB/s and the fraction of the copy roofline, as a table, JSON and CSV.
#include <fmt/format.h>

#include <fstream>

#include "cli_util.hpp"
#include "commands.hpp"
#include "fvk/error.hpp"
#include "judge/bench.hpp"
#include "judge/judge.hpp"

namespace fvk::cli {
namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) fail(ErrorCode::InvalidFile, fmt::format("cannot write {}", path));
  f << text << "\n";
}

Registrar reg_judge([](CLI::App& app, GlobalOptions& global) {
  auto* sub = app.add_subcommand("judge", "Measure each kernel (overhead, bandwidth) into the cost table");
  auto opts = std::make_shared<judge::JudgeOptions>();
  auto out = std::make_shared<std::string>();
  sub->add_option("--out", *out, "cost table path (default: env FVK_COST_TABLE or ~/.cache/fvk/cost_table.json)");
  sub->add_option("--max-bytes", opts->max_bytes, "largest rung of the size ladder, in bytes moved");
  sub->add_option("--reps", opts->reps, "timed repetitions per rung (median)");
  sub->add_option("--warm-up", opts->warm_up_seconds, "seconds of large copies before timing (clocks ramp up)");
  sub->add_option("--kernel", opts->kernel_filter,
                  "only kernels whose name contains one of these comma-separated words");
  set_action(sub, [&global, opts, out]() {
    Context ctx = make_context(global);
    const std::string path = out->empty() ? judge::CostTable::default_path() : *out;
    auto table = judge::CostTable::load(path);
    fmt::print("judge on {} -> {}\n", ctx.device_info().name, path);
    const auto skipped = judge::run_judge(ctx.runtime(), *opts, table, [](const judge::JudgeProgress& p) {
      fmt::print("[{:>2}/{}] {:<32} overhead {:>9.0f} ns  bandwidth {:>8.2f} GB/s  ({} rungs)\n", p.index, p.total,
                 p.kernel, p.cost.overhead_ns, p.cost.bytes_per_ns, p.cost.samples.size());
      std::fflush(stdout);
    });
    for (const auto& k : skipped) fmt::print("skipped: {}, which the device lacks\n", k);
    table.save(path);
    fmt::print("wrote {} entries to {}\n", table.size(), path);
    return 0;
  });
});

Registrar reg_bench([](CLI::App& app, GlobalOptions& global) {
  auto* sub = app.add_subcommand("bench", "Benchmark the kernel families on realistic shapes");
  auto json = std::make_shared<std::string>();
  auto csv = std::make_shared<std::string>();
  auto sets = std::make_shared<std::string>();
  auto quick = std::make_shared<bool>(false);
  auto opts = std::make_shared<judge::BenchOptions>();
  sub->add_option("--json", *json, "write results as JSON");
  sub->add_option("--csv", *csv, "write results as CSV");
  sub->add_option("--sets", *sets, "comma-separated subset of image,audio,small,rank5");
  sub->add_flag("--quick", *quick, "shrink the shapes (software devices, smoke tests)");
  sub->add_option("--reps", opts->reps, "timed repetitions (median)");
  sub->add_option("--rounds", opts->rounds, "timed rounds; each row keeps its fastest (default 3, 1 with --quick)");
  sub->add_option("--warm-up", opts->warm_up_seconds, "seconds of large copies before timing (clocks ramp up)");
  sub->add_option("--kernel", opts->kernel_filter,
                  "only kernels whose name contains one of these comma-separated words");
  set_action(sub, [&global, json, csv, sets, quick, opts, sub]() {
    if (*quick && sub->count("--rounds") == 0) opts->rounds = 1;
    Context ctx = make_context(global);
    for (auto& s : judge::default_sets(*quick))
      if (sets->empty() || ("," + *sets + ",").find("," + s.name + ",") != std::string::npos) opts->sets.push_back(s);
    if (opts->sets.empty()) fail(ErrorCode::InvalidArgument, fmt::format("--sets '{}' names no known set", *sets));
    fmt::print("bench on {} ({})\n", ctx.device_info().name, ctx.device_info().driver);
    fmt::print("{:<6} {:<32} {:<5} {:>12} {:>10} {:>10} {:>7}\n", "set", "kernel", "dtype", "time (us)", "GB/s",
               "copy GB/s", "roof");
    const auto result = judge::run_bench(ctx.runtime(), *opts, [](const judge::BenchRow& r) {
      fmt::print("{:<6} {:<32} {:<5} {:>12.2f} {:>10.1f} {:>10.1f} {:>6.0f}%\n", r.set, r.target.kernel,
                 name(r.target.dtype), r.gpu_ns / 1000, r.gbps, r.copy_gbps, 100 * r.roofline_fraction);
      std::fflush(stdout);
    });
    fmt::print("copy roofline (large copy): {:.1f} GB/s\n", result.copy_roofline_gbps);
    if (!json->empty()) write_file(*json, judge::to_json(result));
    if (!csv->empty()) write_file(*csv, judge::to_csv(result));
    return 0;
  });
});

}  // namespace
}  // namespace fvk::cli
