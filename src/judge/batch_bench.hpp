// Small shapes in a batch: the time per op that a run of many small ops costs when they are recorded
// into one fvk::Batch, against the same measure for the smallest op there is. Each op is recorded
// `ops` times on one input (zeros: no kernel's time depends on the values) with `ops` outputs, so
// the ops are independent and the batch records no barrier between them (only the one before all
// the atomic backwards' adds, see fvk/batch.hpp); the GPU time comes from the batch's timestamps,
// divided by `ops`. The reference ("an empty dispatch") is a masked_fill of one f32 element: one
// dispatch of one workgroup that writes 4 bytes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fvk/context.hpp"
#include "judge/bench.hpp"

namespace fvk::judge {

struct BatchRow {
  ops::Target target;
  double ns_per_op = 0;          // GPU time of the batch over its ops (the fastest round)
  double dispatches_per_op = 0;  // kernel dispatches the batch recorded, over its ops
  std::size_t barriers = 0;      // barriers the batch recorded (its ops are independent: only the
                                 // one before the atomic backwards' adds)
  double vs_smallest = 0;        // ns_per_op over the smallest op's
};

struct BatchBenchResult {
  BenchSet set;
  int ops = 0;
  double smallest_ns_per_op = 0;  // the one-element masked_fill, recorded `ops` times
  std::vector<BatchRow> rows;
};

struct BatchBenchOptions {
  BenchSet set;
  int ops = 100;
  int rounds = 3;             // each row (and the reference) keeps its fastest round
  std::string kernel_filter;  // as BenchOptions::kernel_filter
};

BatchBenchResult run_batch_bench(Context& ctx, const BatchBenchOptions& options,
                                 const std::function<void(const BatchRow&)>& progress);

std::string to_json(const BatchBenchResult& result);

}  // namespace fvk::judge
