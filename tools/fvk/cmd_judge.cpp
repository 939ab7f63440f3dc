// fvk judge: measure every kernel's cost on this device and store it where the planner reads it.
// fvk bench: realistic shapes, GB/s and the fraction of the copy roofline, as a table, JSON and CSV.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ranges>

#include "cli_util.hpp"
#include "commands.hpp"
#include "core/link_target.hpp"
#include "fvk/error.hpp"
#include "judge/batch_bench.hpp"
#include "judge/bench.hpp"
#include "judge/judge.hpp"

namespace fvk::cli {
namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) fail(ErrorCode::InvalidFile, fmt::format("cannot write {}", path));
  f << text << "\n";
}

// The set `fvk bench --shape S --pads P` adds: InvalidArgument naming the flag and the rule broken.
judge::BenchSet custom_set(const std::string& shape_text, const std::string& pads_text) {
  if (shape_text.empty()) fail(ErrorCode::InvalidArgument, "--pads is given without --shape: give the input shape too");
  if (pads_text.empty()) fail(ErrorCode::InvalidArgument, "--shape is given without --pads: give the pads too");
  judge::BenchSet set{"custom", {}, parse_int_list(pads_text, "--pads")};
  for (const auto d : parse_int_list(shape_text, "--shape")) {
    if (d < 1) fail(ErrorCode::InvalidArgument, fmt::format("--shape {}: every dim must be at least 1", shape_text));
    set.shape.push_back(d);
  }
  const std::size_t rank = set.shape.size();
  if (rank > static_cast<std::size_t>(kMaxRank))
    fail(ErrorCode::InvalidArgument,
         fmt::format("--shape {}: rank {}, but the pad kernels take rank 1 to {}", shape_text, rank, kMaxRank));
  if (set.torch_pads.empty() || set.torch_pads.size() % 2 != 0 || set.torch_pads.size() > 2 * rank)
    fail(ErrorCode::InvalidArgument,
         fmt::format("--pads {}: an even count of pads, two per padded axis, at most {} for a shape of rank {}",
                     pads_text, 2 * rank, rank));
  for (std::size_t i = 0; i < set.torch_pads.size(); ++i) {
    const std::int64_t dim = set.shape[rank - 1 - i / 2];
    if (set.torch_pads[i] < 0 || set.torch_pads[i] > dim - 1)
      fail(ErrorCode::InvalidArgument,
           fmt::format("--pads {}: pad {} is {}, but the bench times reflect too, which takes pads from 0 to the "
                       "dim minus 1 ({} here)",
                       pads_text, i, set.torch_pads[i], dim - 1));
  }
  return set;
}

// --warm-up: seconds from 0 to 600 (CLI::Range lets NaN through: it compares).
const CLI::Validator kWarmUpSeconds(
    [](const std::string& text) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      const bool ok = !text.empty() && *end == '\0' && v >= 0.0 && v <= 600.0;
      return ok ? std::string() : "seconds from 0 to 600, not " + text;
    },
    "SECONDS in [0, 600]");

// --max-bytes: decimal digits only (CLI11 reads -1 into an unsigned option as 2^64 - 1).
const CLI::Validator kByteCount(
    [](const std::string& text) {
      const std::string_view digits = std::string_view(text).substr(text.starts_with('+') ? 1 : 0);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
        return "a whole number of bytes (0: the default), not " + text;
      std::uint64_t v = 0;
      if (std::from_chars(digits.data(), digits.data() + digits.size(), v).ec != std::errc())
        return text + " is out of range: it must fit an unsigned 64-bit integer";
      return std::string();
    },
    "BYTES");

Registrar reg_judge([](CLI::App& app, GlobalOptions& global) {
  auto* sub = app.add_subcommand("judge", "Measure each kernel (overhead, bandwidth) into the cost table");
  auto opts = std::make_shared<judge::JudgeOptions>();
  auto out = std::make_shared<std::string>();
  sub->add_option("--out", *out,
                  "cost table path (default: env FVK_COST_TABLE, else $XDG_CACHE_HOME/fvk/cost_table.json, else "
                  "~/.cache/fvk/cost_table.json: the planner reads only that one)");
  sub->add_option("--max-bytes", opts->max_bytes,
                  "largest rung of the size ladder, in bytes moved: from 4096 to the device's maxStorageBufferRange")
      ->check(kByteCount);
  sub->add_option("--reps", opts->reps, "timed repetitions per rung (median)")->check(CLI::Range(1, 100000));
  sub->add_option("--warm-up", opts->warm_up_seconds, "seconds of large copies before timing (clocks ramp up)")
      ->check(kWarmUpSeconds);
  sub->add_option("--kernel", opts->kernel_filter,
                  "only kernels whose name contains one of these comma-separated words");
  set_action(sub, [&global, opts, out, sub]() {
    // An empty --out would fall back to the planner's own table without a word.
    if (sub->count("--out") > 0 && out->empty())
      fail(ErrorCode::InvalidArgument,
           "--out is empty: give the cost table's path, or leave --out out for the default");
    std::vector<std::string> names;
    for (const auto& t : ops::all_targets()) names.push_back(t.kernel);
    require_kernel_match(opts->kernel_filter, names);
    Context ctx = make_context(global);
    ValidationReport report(ctx);
    (void)judge::ladder_top(ctx.device_info(), *opts, "--max-bytes");
    const std::string path = out->empty() ? judge::CostTable::default_path() : *out;
    const std::string flag = out->empty() ? "the cost table" : "--out";
    check_writable(path, flag, true);
    // Saved beside its file and renamed over it: a new file must be possible in that folder too,
    // not only the table itself writable.
    const std::string probe = link_target(path) + ".probe";
    const bool made = static_cast<bool>(std::ofstream(probe));
    std::error_code ec;
    std::filesystem::remove(probe, ec);
    if (!made)
      fail(ErrorCode::InvalidFile,
           fmt::format("{} {}: cannot make a new file in its folder, which writing it needs (it is written beside, "
                       "then renamed over the old one)",
                       flag, path));
    auto table = judge::CostTable::load(path);
    fmt::print("judge on {} -> {}\n", ctx.device_info().name, path);
    const auto skipped = judge::run_judge(ctx.runtime(), *opts, table, [](const judge::JudgeProgress& p) {
      fmt::print("[{:>2}/{}] {:<32} overhead {:>9.0f} ns  bandwidth {:>8.2f} GB/s  ({} rungs)\n", p.index, p.total,
                 p.kernel, p.cost.overhead_ns, p.cost.bytes_per_ns, p.cost.samples.size());
      std::fflush(stdout);
    });
    for (const auto& k : skipped) fmt::print("skipped: {}, which the device lacks\n", k);
    if (report.any()) {  // the planner reads the table: a run the layer flagged leaves it as it was
      fmt::print("not written: {} (the validation layer reported on this run)\n", path);
      return report.exit_code();
    }
    table.save(path);
    fmt::print("wrote {} entries to {}\n", table.size(), path);
    return report.exit_code();
  });
});

Registrar reg_bench([](CLI::App& app, GlobalOptions& global) {
  auto* sub = app.add_subcommand("bench", "Benchmark the kernel families on realistic shapes");
  auto json = std::make_shared<std::string>();
  auto csv = std::make_shared<std::string>();
  auto sets = std::make_shared<std::string>();
  auto quick = std::make_shared<bool>(false);
  auto opts = std::make_shared<judge::BenchOptions>();
  auto batch = std::make_shared<int>(0);
  auto batch_json = std::make_shared<std::string>();
  sub->add_option("--json", *json, "write results as JSON");
  sub->add_option("--csv", *csv, "write results as CSV");
  sub->add_option("--sets", *sets, "comma-separated subset of image,audio,small,rank5");
  sub->add_flag("--quick", *quick, "shrink the shapes (software devices, smoke tests)");
  sub->add_option("--reps", opts->reps, "timed repetitions (median)")->check(CLI::Range(1, 100000));
  sub->add_option("--rounds", opts->rounds, "timed rounds; each row keeps its fastest (default 3, 1 with --quick)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--warm-up", opts->warm_up_seconds, "seconds of large copies before timing (clocks ramp up)")
      ->check(kWarmUpSeconds);
  sub->add_option("--kernel", opts->kernel_filter,
                  "only kernels whose name contains one of these comma-separated words");
  sub->add_option("--batch", *batch,
                  "also time the small set's ops recorded N at a time into one batch, per op, against the smallest "
                  "op (a one-element masked_fill) recorded the same way");
  sub->add_option("--batch-json", *batch_json, "write the --batch results as JSON");
  auto shape = std::make_shared<std::string>();
  auto pads = std::make_shared<std::string>();
  sub->add_option("--shape", *shape,
                  "also time a set of your own, named custom: the input shape, comma-separated (with --pads; "
                  "alone unless --sets names others too)");
  sub->add_option("--pads", *pads,
                  "with --shape: the pads in torch.nn.functional.pad order (last axis first, left then right), "
                  "comma-separated; each at most the dim minus 1, so that reflect takes them too");
  set_action(sub, [&global, json, csv, sets, quick, opts, batch, batch_json, sub, shape, pads]() {
    if (*quick && sub->count("--rounds") == 0) opts->rounds = 1;
    if (!shape->empty() || !pads->empty()) opts->sets.push_back(custom_set(*shape, *pads));
    const auto known = judge::default_sets(*quick);
    std::vector<std::string> known_names;
    for (const auto& s : known) known_names.push_back(s.name);
    // Every name must be a set: one misspelt name among good ones was dropped without a word.
    if (!sets->empty())
      for (const auto word : std::views::split(*sets, ','))
        if (const std::string w(word.begin(), word.end());
            !w.empty() && std::find(known_names.begin(), known_names.end(), w) == known_names.end())
          fail(ErrorCode::InvalidArgument,
               fmt::format("--sets '{}': '{}' is no set; the sets are {}", *sets, w, fmt::join(known_names, ", ")));
    for (const auto& s : known)
      if ((sets->empty() && shape->empty()) || ("," + *sets + ",").find("," + s.name + ",") != std::string::npos)
        opts->sets.push_back(s);
    if (opts->sets.empty()) fail(ErrorCode::InvalidArgument, fmt::format("--sets '{}' names no known set", *sets));
    Context ctx = make_context(global);
    ValidationReport report(ctx);
    // --batch's arguments checked before anything is timed.
    const auto small =
        std::find_if(opts->sets.begin(), opts->sets.end(), [](const auto& s) { return s.name == "small"; });
    if (sub->count("--batch") > 0 && *batch < 1)
      fail(ErrorCode::InvalidArgument, fmt::format("--batch {}: the ops per batch must be at least 1", *batch));
    if (*batch > 0 && small == opts->sets.end())
      fail(ErrorCode::InvalidArgument, "--batch times the small set's ops: add small to --sets");
    if (!batch_json->empty() && *batch == 0)
      fail(ErrorCode::InvalidArgument, "--batch-json writes the --batch results: give --batch N too");
    check_writable(*json, "--json");
    check_writable(*csv, "--csv");
    check_writable(*batch_json, "--batch-json");
    std::vector<std::string> names;  // the kernels the bench times on this device
    for (const auto& b : judge::bench_targets(ctx.device_info())) names.push_back(b.target.kernel);
    require_kernel_match(opts->kernel_filter, names);
    fmt::print("bench on {} ({})\n", ctx.device_info().name, ctx.device_info().driver);
    // roof: the contract's bytes_moved over the time, against a copy of that size; target: the bytes
    // that must move (input once, output once) over the time, against a copy of that size: the
    // measure of the speed targets.
    // (copy GB/s: the copy of the contract's bytes; its target copy: of the bytes that must move.)
    fmt::print("{:<6} {:<32} {:<5} {:>12} {:>10} {:>10} {:>7} {:>12} {:>7}\n", "set", "kernel", "dtype", "time (us)",
               "GB/s", "copy GB/s", "roof", "target copy", "target");
    const auto result = judge::run_bench(ctx.runtime(), *opts, [](const judge::BenchRow& r) {
      fmt::print("{:<6} {:<32} {:<5} {:>12.2f} {:>10.1f} {:>10.1f} {:>6.0f}% {:>12.1f} {:>6.1f}%\n", r.set,
                 r.target.kernel, name(r.target.dtype), r.gpu_ns / 1000, r.gbps, r.copy_gbps, 100 * r.roofline_fraction,
                 r.must_move_copy_gbps, 100 * r.must_move_fraction);
      std::fflush(stdout);
    });
    fmt::print("copy roofline (large copy): {:.1f} GB/s\n", result.copy_roofline_gbps);
    if (!json->empty()) write_file(*json, judge::to_json(result));
    if (!csv->empty()) write_file(*csv, judge::to_csv(result));
    if (*batch > 0) {
      const judge::BatchBenchOptions bo{*small, *batch, opts->rounds, opts->kernel_filter};
      fmt::print("\n{} ops per batch, small set {}: GPU time per op\n", *batch, fmt::join(small->shape, "x"));
      fmt::print("{:<32} {:<5} {:>12} {:>11} {:>9} {:>12}\n", "kernel", "dtype", "us per op", "dispatches", "barriers",
                 "vs smallest");
      const auto br = judge::run_batch_bench(ctx, bo, [](const judge::BatchRow& r) {
        fmt::print("{:<32} {:<5} {:>12.3f} {:>11.0f} {:>9} {:>11.2f}x\n", r.target.kernel, name(r.target.dtype),
                   r.ns_per_op / 1000, r.dispatches_per_op, r.barriers, r.vs_smallest);
      });
      fmt::print("smallest op (masked_fill of one f32 element): {:.3f} us per op\n", br.smallest_ns_per_op / 1000);
      if (!batch_json->empty()) write_file(*batch_json, judge::to_json(br));
    }
    return report.exit_code();
  });
});

}  // namespace
}  // namespace fvk::cli
