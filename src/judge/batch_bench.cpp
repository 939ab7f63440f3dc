#include "judge/batch_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "fkc/catalog.hpp"
#include "fvk/batch.hpp"
#include "fvk/error.hpp"
#include "fvk/host_tensor.hpp"
#include "fvk/pad_spec.hpp"
#include "judge/timing.hpp"
#include "ops/launch.hpp"

namespace fvk::judge {
namespace {

struct BatchTime {
  double ns_per_op = 0;
  double dispatches_per_op = 0;
  std::size_t barriers = 0;
};

// `op` recorded n times into one batch (each call returns that op's output, kept alive until the
// batch has run).
BatchTime time_batch(Context& ctx, PlanPolicy policy, int n, const std::function<Tensor(Batch&)>& op) {
  if (!ctx.device_info().timestamps)
    fail(ErrorCode::FeatureMissing, "the batch benchmark needs timestamp queries, which this device's queue lacks");
  Batch b(ctx, policy);
  std::vector<Tensor> outputs;
  outputs.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) outputs.push_back(op(b));
  b.submit();
  return {b.gpu_ns() / n, static_cast<double>(b.dispatches()) / n, b.barriers()};
}

PlanPolicy policy_for(const ops::Target& t) {
  return t.op == ops::Op::PadBackward && t.mode != PadMode::Constant && t.algorithm == BackwardAlgorithm::Atomic
             ? PlanPolicy::PreferNondeterministic
             : PlanPolicy::DeterministicOnly;
}

}  // namespace

BatchBenchResult run_batch_bench(Context& ctx, const BatchBenchOptions& options,
                                 const std::function<void(const BatchRow&)>& progress) {
  if (options.ops < 1) fail(ErrorCode::InvalidArgument, fmt::format("--batch {}: at least one op", options.ops));
  BatchBenchResult result;
  result.set = options.set;
  result.ops = options.ops;
  const int rounds = std::max(options.rounds, 1);
  const Shape shape = options.set.shape;
  // The backward's grad_out: the padded shape.
  const Shape padded =
      infer_pad(shape, PadSpec::from_torch(PadMode::Constant, shape.size(), options.set.torch_pads)).out;

  // The reference: the smallest op.
  const Tensor one = ctx.upload(HostTensor::zeros(DType::F32, {1}));
  const Tensor one_mask = ctx.upload(HostTensor::zeros(DType::Bool, {1}));
  auto smallest = [&](Batch& b) { return b.masked_fill(one, one_mask, Scalar::from_double(1.0)); };
  (void)time_batch(ctx, PlanPolicy::DeterministicOnly, 1, smallest);  // pipelines created
  result.smallest_ns_per_op = std::numeric_limits<double>::infinity();

  std::vector<std::function<Tensor(Batch&)>> row_ops;  // result.rows[i]'s op (its inputs held by value)
  for (const auto& [f, t] : bench_targets(ctx.device_info())) {
    const DType d = t.dtype;
    if (!matches_filter(t.kernel, options.kernel_filter)) continue;
    const PadSpec spec = PadSpec::from_torch(f.mode, shape.size(), options.set.torch_pads);
    std::function<Tensor(Batch&)> op;
    switch (f.op) {
      case ops::Op::Pad: {
        const Tensor in = ctx.upload(HostTensor::zeros(d, shape));
        op = [in, spec](Batch& b) { return b.pad(in, spec, Scalar::from_int(0)); };
        break;
      }
      case ops::Op::PadBackward: {
        const Tensor grad_out = ctx.upload(HostTensor::zeros(d, padded));
        op = [grad_out, spec](Batch& b) { return b.pad_backward(grad_out, spec); };
        break;
      }
      case ops::Op::MaskedFill: {
        const Tensor in = ctx.upload(HostTensor::zeros(d, shape));
        const Tensor mask = ctx.upload(HostTensor::zeros(DType::Bool, shape));
        op = [in, mask](Batch& b) { return b.masked_fill(in, mask, Scalar::from_int(1)); };
        break;
      }
      default: continue;
    }
    BatchRow row;
    row.target = t;
    row.ns_per_op = std::numeric_limits<double>::infinity();
    result.rows.push_back(row);
    row_ops.push_back(std::move(op));
  }
  // Pipelines created, and those built for a geometry once hot queued: each op recorded
  // hot_warm_up_runs times, one batch each, once every row's inputs exist (so that the outputs
  // allocated and freed here do not decide where later rows' inputs land).
  for (std::size_t i = 0; i < row_ops.size(); ++i)
    for (std::uint32_t n = 0; n < hot_warm_up_runs(ctx.runtime()); ++n)
      (void)time_batch(ctx, policy_for(result.rows[i].target), 1, row_ops[i]);
  ctx.finish_background_builds();  // the rounds time the ops' steady state
  for (int round = 0; round < rounds; ++round) {
    result.smallest_ns_per_op = std::min(
        result.smallest_ns_per_op, time_batch(ctx, PlanPolicy::DeterministicOnly, options.ops, smallest).ns_per_op);
    for (std::size_t i = 0; i < row_ops.size(); ++i) {
      const BatchTime t = time_batch(ctx, policy_for(result.rows[i].target), options.ops, row_ops[i]);
      result.rows[i].ns_per_op = std::min(result.rows[i].ns_per_op, t.ns_per_op);
      result.rows[i].dispatches_per_op = t.dispatches_per_op;
      result.rows[i].barriers = t.barriers;
    }
  }
  for (auto& row : result.rows) {
    row.vs_smallest = row.ns_per_op / result.smallest_ns_per_op;
    progress(row);
  }
  return result;
}

std::string to_json(const BatchBenchResult& r) {
  nlohmann::json j;
  j["shape_set"] = r.set.name;
  j["shape"] = r.set.shape;
  j["pads"] = r.set.torch_pads;
  j["ops_per_batch"] = r.ops;
  j["smallest_op"] = "masked_fill of one f32 element";
  j["smallest_ns_per_op"] = r.smallest_ns_per_op;
  j["results"] = nlohmann::json::array();
  for (const auto& row : r.rows)
    j["results"].push_back({{"kernel", row.target.kernel},
                            {"dtype", std::string(name(row.target.dtype))},
                            {"ns_per_op", row.ns_per_op},
                            {"dispatches_per_op", row.dispatches_per_op},
                            {"barriers_per_batch", row.barriers},
                            {"vs_smallest", row.vs_smallest}});
  return j.dump(2);
}

}  // namespace fvk::judge
