// The Judge: measures each kernel on the device in use over a ladder of sizes, fits
// time = overhead_ns + bytes_moved / bandwidth (bytes_moved from the kernel's contract), and stores
// the result in the cost table the planner reads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "judge/cost_table.hpp"
#include "runtime/device.hpp"

namespace fvk::judge {

struct JudgeOptions {
  std::uint64_t min_bytes = 4 << 10;  // smallest rung: a few KiB
  std::uint64_t max_bytes = 0;        // largest rung; 0: min(1 GiB, maxStorageBufferRange / 4, heap / 16)
                                      // below min_bytes or above maxStorageBufferRange: InvalidArgument
  int reps = 9;
  std::string kernel_filter;     // only kernels whose name contains one of its comma-separated words
  double warm_up_seconds = 2.0;  // large copies first, so clocks have ramped up
};

struct JudgeProgress {
  std::string kernel;
  std::size_t index = 0, total = 0;
  MeasuredCost cost;
};

// The size ladder's largest rung for `info`: options.max_bytes, or the device's default where it is 0.
// InvalidArgument naming `name` (the option's name where the caller has one, as --max-bytes) where
// it lies below options.min_bytes or beyond one binding (maxStorageBufferRange). run_judge checks
// it first, before anything runs.
std::uint64_t ladder_top(const DeviceInfo& info, const JudgeOptions& options, std::string_view name);

// Measures every shipped kernel the device can run (one representative dtype each) and puts the
// results into `table`. Returns the kernels left out because the device lacks a feature their
// contract requires (the ops and the planner never choose those there), each with what it lacks.
std::vector<std::string> run_judge(rt::Device& device, const JudgeOptions& options, CostTable& table,
                                   const std::function<void(const JudgeProgress&)>& progress);

// Least-squares fit of ns = overhead + bytes / bandwidth over (bytes, ns) samples.
MeasuredCost fit(const std::vector<std::pair<double, double>>& samples);

}  // namespace fvk::judge
