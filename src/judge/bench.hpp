// The benchmark: realistic shapes, every kernel family and a dtype per byte width, GPU time from
// timestamp queries, effective GB/s from the contract's bytes_moved, and the fraction of the copy
// roofline (copy_b4 over the same byte count, timed in the same run).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fvk/device_info.hpp"
#include "ops/targets.hpp"
#include "runtime/device.hpp"

namespace fvk::judge {

struct BenchSet {
  std::string name;
  Shape shape;                           // pad: the input; backward: grad_in; masked_fill: the input
  std::vector<std::int64_t> torch_pads;  // torch.nn.functional.pad order
};

// image [16,64,512,512] pads 3; audio [64,1,480000] pads 512; small [8,3,32,32] pads 1;
// rank5 [4,16,64,64,64] pads 2. `quick` shrinks them for software devices.
std::vector<BenchSet> default_sets(bool quick);

struct BenchRow {
  std::string set;
  ops::Target target;
  Shape shape;
  std::vector<std::int64_t> torch_pads;
  double gpu_ns = 0;
  double bytes = 0;  // the contract's bytes_moved
  double gbps = 0;
  double copy_gbps = 0;          // copy_b4 over the contract's bytes, same run
  double roofline_fraction = 0;  // gbps / copy_gbps: on the contract's bytes
  // The bytes that must move (the speed targets' count): each input read once and the output
  // written once, (n_in + n_out) * B for the pad family, 2 * n * B + n for masked_fill (its mask).
  // The contract's bytes_moved differs for reflect/replicate forward (2 * n_out * B, a read per
  // output element) and the crop (2 * n_in * B).
  double must_move_bytes = 0;
  // copy_b4 over must_move_bytes, same run: the same-size copy of the targets' measure. A copy of
  // another size is not the same ceiling (a larger one spreads its launch over more bytes: on the
  // H200 the rank-5 forward reflect rows' copy, 9% larger, ran 2-3% faster than the one of their
  // must-move bytes would).
  double must_move_copy_gbps = 0;
  double must_move_fraction = 0;  // must_move_bytes / gpu_ns / must_move_copy_gbps
};

struct BenchResult {
  DeviceInfo device;
  double copy_roofline_gbps = 0;  // a large copy, the device's ceiling
  std::string shape_constants;    // the device's setting (auto, never, always)
  std::uint32_t specialize_after = 0;
  std::vector<BenchRow> rows;
};

struct BenchOptions {
  std::vector<BenchSet> sets;
  std::string kernel_filter;  // only kernels whose name contains one of these comma-separated words
  int reps = 15;
  int rounds = 3;                // each row keeps its fastest round (see run_bench)
  double warm_up_seconds = 2.0;  // large copies first, so clocks have ramped up before timing
};

// A benchmarked family: its op, mode and algorithm, and the dtypes timed (one per byte width, bf16
// beside f16 since PyTorch treats them apart, and f64 for the summing backwards).
struct BenchFamily {
  ops::Op op;
  PadMode mode;
  BackwardAlgorithm algorithm;
  std::vector<DType> dtypes;
};
std::vector<BenchFamily> bench_families();

// The family's target for dtype d: the build its public op dispatches on this device (a portable
// build where the device, or FVK_DISABLE_FEATURES, lacks a subgroup operation).
std::optional<ops::Target> find_bench_target(const DeviceInfo& device, const BenchFamily& f, DType d);

// What the bench times on this device, in bench_families() order: each family's dtypes whose target
// find_bench_target gives and whose kernel the device has the features for (a kernel it lacks them
// for gets no row: its public op would refuse with FeatureMissing).
struct BenchTarget {
  BenchFamily family;
  ops::Target target;
};
std::vector<BenchTarget> bench_targets(const DeviceInfo& device);

// Whether the kernel name contains one of the comma-separated words of `filter` (empty: all).
bool matches_filter(const std::string& kernel, const std::string& filter);

BenchResult run_bench(rt::Device& device, const BenchOptions& options,
                      const std::function<void(const BenchRow&)>& progress);

std::string to_json(const BenchResult& result);
std::string to_csv(const BenchResult& result);

}  // namespace fvk::judge
