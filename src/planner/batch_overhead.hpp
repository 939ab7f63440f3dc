// What batching buys: the same small pad submitted alone N times versus recorded N times into one
// fvk::Batch. GPU time from timestamp queries, wall time from the host clock (record + submit +
// wait). `fvk plan --batch-overhead N` prints it; the batch test checks the results agree.
#pragma once

#include <cstddef>
#include <vector>

#include "fvk/context.hpp"
#include "fvk/pad_spec.hpp"
#include "fvk/tensor.hpp"

namespace fvk::planner {

struct BatchOverhead {
  std::size_t ops = 0;
  double alone_wall_ns_per_op = 0;  // fvk::pad per op: its own command buffer, submit and wait
  double alone_gpu_ns_per_op = 0;   // timestamps around each op's kernels
  double batch_wall_ns_per_op = 0;  // record all, one submit and wait, divided by ops
  double batch_gpu_ns_per_op = 0;   // timestamps around the whole batch, divided by ops
  std::size_t batch_submissions = 0;
  std::vector<Tensor> alone, batched;  // outputs, op by op, for comparison
};

// Pads every input with `spec` both ways.
BatchOverhead measure_batch_overhead(Context& ctx, const std::vector<Tensor>& inputs, const PadSpec& spec);

}  // namespace fvk::planner
