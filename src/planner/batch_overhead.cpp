#include "planner/batch_overhead.hpp"

#include <chrono>

#include "fvk/batch.hpp"
#include "fvk/ops.hpp"
#include "runtime/device.hpp"

namespace fvk::planner {

BatchOverhead measure_batch_overhead(Context& ctx, const std::vector<Tensor>& inputs, const PadSpec& spec) {
  using Clock = std::chrono::steady_clock;
  BatchOverhead r;
  r.ops = inputs.size();
  if (inputs.empty()) return r;
  const double n = static_cast<double>(inputs.size());
  // Warm: pipelines created, pool and allocator primed.
  (void)pad(ctx, inputs.front(), spec);

  double gpu = 0;
  auto t0 = Clock::now();
  for (const auto& in : inputs) {
    r.alone.push_back(pad(ctx, in, spec));
    gpu += ctx.last_kernel_ns();
  }
  auto t1 = Clock::now();
  r.alone_wall_ns_per_op = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
  r.alone_gpu_ns_per_op = gpu / n;

  const auto submits = ctx.runtime().submit_count();
  t0 = Clock::now();
  Batch b(ctx);
  for (const auto& in : inputs) r.batched.push_back(b.pad(in, spec));
  b.submit();
  t1 = Clock::now();
  r.batch_submissions = ctx.runtime().submit_count() - submits;
  r.batch_wall_ns_per_op = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
  r.batch_gpu_ns_per_op = b.gpu_ns() / n;
  return r;
}

}  // namespace fvk::planner
