// The Judge and the benchmark on the test device, small: well-formed output, a fitted cost per kernel,
// and stale entries (another revision hash) ignored.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/link_target.hpp"
#include "expect_error.hpp"
#include "fkc/catalog.hpp"
#include "fvk/error.hpp"
#include "gpu_fixture.hpp"
#include "judge/batch_bench.hpp"
#include "judge/bench.hpp"
#include "judge/cost_table.hpp"
#include "judge/judge.hpp"
#include "judge/timing.hpp"

namespace fvk::testing {
namespace {

using ::testing::HasSubstr;

TEST(JudgeFit, RecoversOverheadAndBandwidth) {
  std::vector<std::pair<double, double>> samples;
  for (double bytes : {1e3, 1e4, 1e5, 1e6}) samples.emplace_back(bytes, 5000 + bytes / 2.0);  // 2 bytes/ns
  const auto c = judge::fit(samples);
  EXPECT_NEAR(c.overhead_ns, 5000, 1e-6);
  EXPECT_NEAR(c.bytes_per_ns, 2.0, 1e-9);
  EXPECT_NEAR(c.estimate_ns(4e6), 5000 + 2e6, 1e-3);
}

// A short Judge run over the kernels matching `filter`.
judge::JudgeOptions quick_judge(const std::string& filter) {
  judge::JudgeOptions options;
  options.max_bytes = 1 << 20;
  options.reps = 3;
  options.kernel_filter = filter;
  options.warm_up_seconds = 0.05;
  return options;
}

// On a device without subgroup operations the Judge measures the portable builds and leaves out the
// fast builds, which cannot run there, saying what they lack.
TEST(Judge, MeasuresOnlyWhatTheDeviceRuns) {
  ContextOptions o;
  o.disabled_features = {"subgroupBallot"};
  Context limited(o);
  const auto options = quick_judge("pad_reflect_b4,pad_reflect_portable_b4");
  judge::CostTable table;
  std::vector<std::string> measured;
  const auto skipped = judge::run_judge(limited.runtime(), options, table,
                                        [&](const judge::JudgeProgress& p) { measured.push_back(p.kernel); });
  EXPECT_EQ(measured, std::vector<std::string>{"pad_reflect_portable_b4"});
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_THAT(skipped[0], HasSubstr("pad_reflect_b4"));
  EXPECT_THAT(skipped[0], HasSubstr("subgroupBallot"));
  EXPECT_TRUE(limited.validation_messages().empty());
}

TEST_F(GpuTest, JudgeWritesACostTableThePlannerCanRead) {
  const auto options = quick_judge("pad_reflect_b4");
  judge::CostTable table;
  int calls = 0;
  judge::run_judge(ctx().runtime(), options, table, [&](const judge::JudgeProgress& p) {
    ++calls;
    EXPECT_EQ(p.kernel, "pad_reflect_b4");
    EXPECT_GE(p.cost.samples.size(), 3u);
  });
  EXPECT_EQ(calls, 1);
  const auto path = (std::filesystem::temp_directory_path() / "fvk_test_cost_table.json").string();
  table.save(path);
  const auto loaded = judge::CostTable::load(path);
  const auto revision = fkc::revision_hash(fkc::require_contract("pad_reflect_b4"));
  const auto cost = loaded.find(ctx().device_info(), "pad_reflect_b4", revision);
  ASSERT_TRUE(cost.has_value());
  EXPECT_GT(cost->bytes_per_ns, 0);
  EXPECT_GE(cost->overhead_ns, 0);
  // Another revision of the kernel: the measurement is stale and ignored.
  EXPECT_FALSE(loaded.find(ctx().device_info(), "pad_reflect_b4", "0000000000000000").has_value());
  // JSON is well formed and keyed by device.
  std::ifstream f(path);
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j.at("fvk_cost_table"), 1);
  EXPECT_EQ(j.at("devices").at(0).at("name"), ctx().device_info().name);
  std::filesystem::remove(path);
}

// Zero repetitions once took the median of no times (a read past an empty vector); the count is
// checked before the device's timestamps, so this holds on a device without them too.
TEST_F(GpuTest, TimingNeedsAtLeastOneRepetition) {
  for (int reps : {0, -1})
    EXPECT_THAT(expect_error(ErrorCode::InvalidArgument,
                             [&] {
                               judge::time_gpu(
                                   ctx().runtime(), [](rt::Stream&) {}, 1, reps);
                             }),
                HasSubstr("at least 1 repetition"));
}

TEST(CostTable, MalformedFileIsAnErrorNamingIt) {
  const auto path = (std::filesystem::temp_directory_path() / "fvk_bad_cost_table.json").string();
  std::ofstream(path) << "{not json";
  EXPECT_THAT(expect_error(ErrorCode::InvalidFile, [&] { judge::CostTable::load(path); }), HasSubstr(path));
  std::filesystem::remove(path);
}

// Found by fuzz/fuzz_cost_table: an id or version given as a float beyond 32 bits (9e9) was converted
// with undefined behaviour, a negative one wrapped and a fraction was cut. Each is refused, naming
// the key; the largest id loads.
TEST(CostTable, IdsAndVersionMustBeWholeNumbersOf32Bits) {
  const auto path = (std::filesystem::temp_directory_path() / "fvk_cost_table_ids.json").string();
  const auto write = [&](const std::string& version, const std::string& vendor_id) {
    std::ofstream(path) << R"({"fvk_cost_table": )" << version << R"(, "devices": [{"name": "d", "driver": "x", )"
                        << R"("vendor_id": )" << vendor_id << R"(, "device_id": 1, "driver_version": 1, "kernels": )"
                        << R"({"copy_b4": {"revision": "0123456789abcdef", "overhead_ns": 1, "bandwidth_gbps": 2, )"
                        << R"("samples": [[1, 2]]}}}]})";
  };
  for (const std::string vendor_id : {"9e9", "-1", "4294967296", "1.5", "\"4318\""}) {
    write("1", vendor_id);
    EXPECT_THAT(expect_error(ErrorCode::InvalidFile, [&] { judge::CostTable::load(path); }), HasSubstr("vendor_id"))
        << vendor_id;
  }
  for (const std::string version : {"1e300", "1.0", "-1"}) {
    write(version, "1");
    EXPECT_THAT(expect_error(ErrorCode::InvalidFile, [&] { judge::CostTable::load(path); }),
                HasSubstr("fvk_cost_table"))
        << version;
  }
  write("1", "4294967295");
  EXPECT_EQ(judge::CostTable::load(path).size(), 1u);
  std::filesystem::remove(path);
}

// Found by a hunt through the Judge (session 63). A ladder without rungs (max_bytes under min_bytes)
// measured nothing and stored a cost of 0 ns, which the planner then preferred to every measured
// kernel; a max_bytes of 2^62 or more wrapped the rung size to 0 and grew the ladder until memory
// ran out. Both are refused before anything runs, as is a largest rung no binding can hold.
TEST_F(GpuTest, JudgeRefusesALadderWithoutRungsOrBeyondOneBinding) {
  for (const std::uint64_t max_bytes : {std::uint64_t{100}, std::uint64_t{4095}, std::uint64_t{1} << 62,
                                        ~std::uint64_t{0}, ctx().device_info().max_storage_buffer_range + 1}) {
    auto options = quick_judge("copy_b4");
    options.max_bytes = max_bytes;
    judge::CostTable table;
    int calls = 0;
    const auto before = ctx().dispatch_count();
    const auto message = expect_error(ErrorCode::InvalidArgument, [&] {
      judge::run_judge(ctx().runtime(), options, table, [&](const judge::JudgeProgress&) { ++calls; });
    });
    EXPECT_THAT(message, HasSubstr(fmt::format("max_bytes {}", max_bytes)));
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(table.size(), 0u) << max_bytes;
    EXPECT_EQ(ctx().dispatch_count(), before) << max_bytes;
  }
  // The smallest ladder, one rung, still measures.
  auto options = quick_judge("copy_b4");
  options.max_bytes = options.min_bytes;
  judge::CostTable table;
  judge::run_judge(ctx().runtime(), options, table,
                   [&](const judge::JudgeProgress& p) { EXPECT_EQ(p.cost.samples.size(), 1u); });
  EXPECT_EQ(table.size(), 1u);
}

// Also from that hunt: a table's costs are held to what a measurement can be (finite, at least 0,
// samples as [bytes, ns] pairs, devices an array and kernels an object keyed by name). A table with
// a negative overhead was planned at "-1000000000000 ns measured", and one with the kernels as an
// array made a kernel named "0". A path that names a folder threw a stream error naming neither the
// file nor the variable.
TEST(CostTable, CostsMustBeMeasurementsAndThePathAFile) {
  const auto dir = std::filesystem::temp_directory_path() / "fvk_cost_table_values";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "t.json").string();
  const auto table = [&](const std::string& devices) {
    std::ofstream(path) << R"({"fvk_cost_table": 1, "devices": )" << devices << "}";
  };
  const auto device = [](const std::string& kernels) {
    return R"([{"name": "d", "driver": "x", "vendor_id": 1, "device_id": 1, "driver_version": 1, "kernels": )" +
           kernels + "}]";
  };
  const auto kernel = [](const std::string& overhead, const std::string& bandwidth, const std::string& samples) {
    return R"({"copy_b4": {"revision": "0123456789abcdef", "overhead_ns": )" + overhead + R"(, "bandwidth_gbps": )" +
           bandwidth + R"(, "samples": )" + samples + "}}";
  };
  const std::vector<std::pair<std::string, std::string>> refused{
      {device(kernel("-1e12", "2", "[[1, 2]]")), "overhead_ns of copy_b4 is -1000000000000.0"},
      {device(kernel("1", "-5", "[[1, 2]]")), "bandwidth_gbps of copy_b4 is -5"},
      {device(kernel("\"1\"", "2", "[[1, 2]]")), "overhead_ns of copy_b4 is string"},
      {device(kernel("1", "2", "{}")), "samples of copy_b4 must be an array"},
      {device(kernel("1", "2", "[[1, 2, 3]]")), "a sample of copy_b4 is [1,2,3]"},
      {device(kernel("1", "2", "[[1, -2]]")), "ns of copy_b4's sample is -2"},
      {device(R"([{"revision": "0123456789abcdef"}])"), "kernels must be an object"},
      {R"({"d": 1})", "devices must be an array"},
  };
  for (const auto& [devices, want] : refused) {
    table(devices);
    const auto message = expect_error(ErrorCode::InvalidFile, [&] { judge::CostTable::load(path); });
    EXPECT_THAT(message, HasSubstr(path)) << devices;
    EXPECT_THAT(message, HasSubstr(want)) << devices;
    EXPECT_THAT(message, HasSubstr("delete the file")) << devices;  // and the way out
  }
  // What the Judge wrote before 57f6db7 for a ladder without rungs (--max-bytes under 4096): no
  // samples and a cost of 0 ns. Never a measurement, so left out; the rest of the table loads.
  table(device(R"({"copy_b4": {"revision": "0123456789abcdef", "overhead_ns": 0.0, "bandwidth_gbps": 0.0, )"
               R"("samples": []}, "masked_fill_b4": {"revision": "0123456789abcdef", "overhead_ns": 1, )"
               R"("bandwidth_gbps": 2, "samples": [[1, 2]]}})"));
  const auto old_judge = judge::CostTable::load(path);
  EXPECT_EQ(old_judge.size(), 1u);
  DeviceInfo d;
  d.name = "d";
  d.driver = "x";
  d.vendor_id = d.device_id = d.driver_version = 1;
  EXPECT_FALSE(old_judge.find(d, "copy_b4", "0123456789abcdef").has_value());
  EXPECT_TRUE(old_judge.find(d, "masked_fill_b4", "0123456789abcdef").has_value());
  table(device(kernel("0", "0", "[[0, 0]]")));  // the fit's least: a kernel without bytes_moved
  EXPECT_EQ(judge::CostTable::load(path).size(), 1u);
  EXPECT_THAT(expect_error(ErrorCode::InvalidFile, [&] { judge::CostTable::load(dir.string()); }),
              HasSubstr(dir.string() + ": not a cost table: it is not a file"));
  std::filesystem::remove_all(dir);
}

// The table is written beside its path and renamed over it, so a Judge cut short while writing
// leaves the old table whole (every op refuses a half-written one). Checked here: saves replace it
// and leave nothing beside it; a save that fails (its path a folder that is not empty) says so and
// leaves nothing beside it either; a link to the table stays a link, and its target is written.
TEST(CostTable, SaveReplacesTheFileWholeAndLeavesNothingBeside) {
  const auto dir = std::filesystem::temp_directory_path() / "fvk_cost_table_save";
  std::filesystem::remove_all(dir);
  const auto path = (dir / "sub" / "t.json").string();
  judge::CostTable table;
  DeviceInfo d;
  d.name = "d";
  const auto listing = [](const std::filesystem::path& folder) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(folder)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  for (const int n : {1, 2}) {
    table.put(d, fmt::format("k{}", n), judge::MeasuredCost{"0123456789abcdef", 1, 2, {{1, 2}}});
    table.save(path);
    EXPECT_EQ(judge::CostTable::load(path).size(), static_cast<std::size_t>(n));
    EXPECT_EQ(listing(dir / "sub"), std::vector<std::string>{"t.json"});
  }
  const auto blocked = dir / "blocked.json";
  std::filesystem::create_directories(blocked / "inside");
  EXPECT_THAT(expect_error(ErrorCode::InvalidFile, [&] { table.save(blocked.string()); }),
              HasSubstr("cannot write the cost table to " + blocked.string()));
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"blocked.json", "sub"}));
  const auto link = dir / "link.json";
  std::filesystem::create_symlink(path, link);
  table.put(d, "k3", judge::MeasuredCost{"0123456789abcdef", 1, 2, {{1, 2}}});
  table.save(link.string());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(judge::CostTable::load(path).size(), 3u);
  EXPECT_EQ(listing(dir / "sub"), std::vector<std::string>{"t.json"});
  std::filesystem::remove_all(dir);
}

// A link whose target does not exist yet (a fresh table behind a link) is followed too:
// weakly_canonical stops at it, so fvk judge's write check removed the link itself and the save
// then wrote a plain file in its place.
TEST(CostTable, SaveThroughALinkToNoFileYetWritesItsTarget) {
  const auto dir = std::filesystem::temp_directory_path() / "fvk_cost_table_dangling";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "real");
  const auto link = dir / "link.json";
  std::filesystem::create_symlink("real/t.json", link);
  EXPECT_EQ(link_target(link.string()), (dir / "real" / "t.json").string());
  judge::CostTable table;
  DeviceInfo d;
  d.name = "d";
  table.put(d, "k", judge::MeasuredCost{"0123456789abcdef", 1, 2, {{1, 2}}});
  table.save(link.string());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(judge::CostTable::load((dir / "real" / "t.json").string()).size(), 1u);
  std::filesystem::remove_all(dir);
}

// An empty FVK_COST_TABLE or XDG_CACHE_HOME is as if unset: it named no file, and the Judge timed
// every kernel before it found it could not write there.
TEST(CostTable, EmptyVariablesAreUnset) {
  const auto keep = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto table = keep("FVK_COST_TABLE"), xdg = keep("XDG_CACHE_HOME"), home = keep("HOME");
  ::setenv("FVK_COST_TABLE", "", 1);
  ::setenv("XDG_CACHE_HOME", "", 1);
  ::setenv("HOME", "/h", 1);
  EXPECT_EQ(judge::CostTable::default_path(), "/h/.cache/fvk/cost_table.json");
  ::setenv("XDG_CACHE_HOME", "/x", 1);
  EXPECT_EQ(judge::CostTable::default_path(), "/x/fvk/cost_table.json");
  ::setenv("FVK_COST_TABLE", "/t.json", 1);
  EXPECT_EQ(judge::CostTable::default_path(), "/t.json");
  const auto restore = [](const char* name, const std::optional<std::string>& v) {
    if (v)
      ::setenv(name, v->c_str(), 1);
    else
      ::unsetenv(name);
  };
  restore("FVK_COST_TABLE", table);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

TEST_F(GpuTest, BenchReportsBandwidthAgainstTheCopyRoofline) {
  judge::BenchOptions options;
  options.sets = {judge::default_sets(true)[2]};  // small
  options.kernel_filter = "pad_const_b4";
  options.warm_up_seconds = 0.05;
  options.reps = 3;
  const auto result = judge::run_bench(ctx().runtime(), options, [](const judge::BenchRow&) {});
  ASSERT_EQ(result.rows.size(), 1u);
  const auto& row = result.rows[0];
  EXPECT_GT(row.gpu_ns, 0);
  EXPECT_GT(row.gbps, 0);
  EXPECT_GT(row.copy_gbps, 0);
  EXPECT_GT(result.copy_roofline_gbps, 0);
  const auto j = nlohmann::json::parse(judge::to_json(result));
  EXPECT_EQ(j.at("results").at(0).at("kernel"), "pad_const_b4");
  EXPECT_EQ(j.at("results").at(0).at("shape_set"), "small");
  EXPECT_THAT(judge::to_csv(result), HasSubstr("pad_const_b4"));
}

TEST_F(GpuTest, BenchCountsTheBytesThatMustMove) {
  // The small set, [8, 3, 32, 32] with pads of 1: n_in 24576, n_out 27744. The speed targets count
  // each input once and the output once; the contracts' bytes_moved counts a read per output
  // element for reflect (2 * n_out * B) and the crop's interior reads (2 * n_in * B).
  judge::BenchOptions options;
  options.sets = {judge::default_sets(true)[2]};
  options.kernel_filter = "pad_const_b4,pad_reflect_b4,pad_backward_const_b4,masked_fill_b1";
  options.warm_up_seconds = 0.05;
  options.reps = 3;
  options.rounds = 1;
  const auto result = judge::run_bench(ctx().runtime(), options, [](const judge::BenchRow&) {});
  const std::map<std::string, std::pair<double, double>> want{
      // kernel: {contract bytes, bytes that must move}
      {"pad_const_b4", {(24576 + 27744) * 4, (24576 + 27744) * 4}},
      {"pad_reflect_b4", {2 * 27744 * 4, (24576 + 27744) * 4}},
      {"pad_backward_const_b4", {2 * 24576 * 4, (24576 + 27744) * 4}},
      {"masked_fill_b1", {2 * 24576 + 24576, 2 * 24576 + 24576}},
  };
  ASSERT_EQ(result.rows.size(), want.size());
  const auto j = nlohmann::json::parse(judge::to_json(result));
  for (std::size_t i = 0; i < result.rows.size(); ++i) {
    const auto& row = result.rows[i];
    const auto& [contract, must] = want.at(row.target.kernel);
    EXPECT_EQ(row.bytes, contract) << row.target.kernel;
    EXPECT_EQ(row.must_move_bytes, must) << row.target.kernel;
    // Each count against a copy of its own size: the contract's for roofline_fraction, the
    // must-move bytes' for must_move_fraction (one copy where the two counts agree).
    EXPECT_GT(row.must_move_copy_gbps, 0) << row.target.kernel;
    EXPECT_DOUBLE_EQ(row.roofline_fraction, contract / row.gpu_ns / row.copy_gbps) << row.target.kernel;
    EXPECT_DOUBLE_EQ(row.must_move_fraction, must / row.gpu_ns / row.must_move_copy_gbps) << row.target.kernel;
    if (contract == must) {
      EXPECT_EQ(row.must_move_copy_gbps, row.copy_gbps) << row.target.kernel;
    }
    EXPECT_EQ(j.at("results").at(i).at("must_move_bytes"), static_cast<std::uint64_t>(must));
    EXPECT_DOUBLE_EQ(j.at("results").at(i).at("must_move_copy_gbps").get<double>(), row.must_move_copy_gbps);
  }
}

TEST_F(GpuTest, BatchBenchTimesOpsInABatchAgainstTheSmallestOp) {
  judge::BatchBenchOptions options;
  options.set = judge::default_sets(true)[2];  // small
  options.kernel_filter = "pad_reflect_b4,pad_backward_reflect_f32";
  options.ops = 5;
  options.rounds = 1;
  const auto result = judge::run_batch_bench(ctx(), options, [](const judge::BatchRow&) {});
  ASSERT_EQ(result.rows.size(), 2u);
  EXPECT_GT(result.smallest_ns_per_op, 0);
  for (const auto& row : result.rows) {
    EXPECT_GT(row.ns_per_op, 0) << row.target.kernel;
    EXPECT_DOUBLE_EQ(row.vs_smallest, row.ns_per_op / result.smallest_ns_per_op);
    EXPECT_EQ(row.dispatches_per_op, 1.0) << row.target.kernel;
  }
  EXPECT_EQ(result.rows[0].target.kernel, "pad_reflect_b4");
  EXPECT_EQ(result.rows[0].barriers, 0u);  // independent ops
  EXPECT_EQ(result.rows[1].target.kernel, "pad_backward_reflect_f32");
  EXPECT_EQ(result.rows[1].barriers, 1u);  // one before all the atomic adds
  const auto j = nlohmann::json::parse(judge::to_json(result));
  EXPECT_EQ(j.at("ops_per_batch"), 5);
  EXPECT_EQ(j.at("results").at(1).at("kernel"), "pad_backward_reflect_f32");
}

}  // namespace
}  // namespace fvk::testing
