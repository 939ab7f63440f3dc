// fvk plan: what the planner would run for an op on a view (steps, kernels, costs), and
// --batch-overhead N: one small pad submitted alone N times versus N recorded into one batch.
#include <fmt/format.h>

#include <limits>

#include "cli_util.hpp"
#include "commands.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "planner/batch_overhead.hpp"
#include "planner/planner.hpp"
#include "runtime/device.hpp"

namespace fvk::cli {
namespace {

struct PlanArgs {
  std::string op = "pad", mode = "constant", dtype = "f32", shape, strides, pads, value = "0";
  std::string mask_shape, mask_strides;
  std::int64_t offset = 0, mask_offset = 0;
  bool allow_nondeterministic = false, prefer_nondeterministic = false, deterministic_only = false;
  std::size_t batch_overhead = 0;
};

ViewLayout view_from(DType dtype, const std::string& shape, const std::string& strides, std::int64_t offset,
                     const std::string& what) {
  ViewLayout v;
  v.dtype = dtype;
  v.shape = parse_int_list(shape, what + " shape");
  v.strides = strides.empty() ? dense_strides(v.shape) : parse_int_list(strides, what + " strides");
  v.offset = offset;
  // Held against the smallest buffer that holds it (a plan needs no buffer): elements 0 .. hi.
  const auto [lo, hi] = v.reach(what);  // the form first, its errors naming `what`
  if (lo < 0)
    fail(ErrorCode::InvalidArgument,
         fmt::format("{} reaches element {} before its buffer's start; raise --offset", what, lo));
  if (hi == std::numeric_limits<std::int64_t>::max())
    fail(ErrorCode::IndexOverflow, fmt::format("{} reaches element 2^63-1: its buffer would need 2^63 elements", what));
  return v;
}

int run_overhead(Context& ctx, std::size_t n) {
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(ctx.upload(HostTensor::zeros(DType::F32, {3, 5})));
  const PadSpec spec{PadMode::Reflect, {1, 2}, {2, 1}};
  const auto r = planner::measure_batch_overhead(ctx, inputs, spec);
  const bool validation = ctx.runtime().validation_enabled();
  fmt::print("device: {}{}\n", ctx.device_info().name, validation ? " (validation layer on: wall times inflated)" : "");
  fmt::print("{} small pads (3x5 f32, reflect (1,2),(2,1))\n", n);
  fmt::print("{:<36} {:>14} {:>14}\n", "", "wall us/op", "GPU us/op");
  fmt::print("{:<36} {:>14.2f} {:>14.3f}\n", "submitted alone (one submit per op)", r.alone_wall_ns_per_op / 1e3,
             r.alone_gpu_ns_per_op / 1e3);
  fmt::print("{:<36} {:>14.2f} {:>14.3f}\n", fmt::format("recorded in one batch ({} submit)", r.batch_submissions),
             r.batch_wall_ns_per_op / 1e3, r.batch_gpu_ns_per_op / 1e3);
  fmt::print("batching saves {:.2f} us wall per op ({:.1f}x)\n",
             (r.alone_wall_ns_per_op - r.batch_wall_ns_per_op) / 1e3,
             r.alone_wall_ns_per_op / std::max(r.batch_wall_ns_per_op, 1.0));
  return 0;
}

Registrar reg([](CLI::App& app, GlobalOptions& global) {
  auto a = std::make_shared<PlanArgs>();
  auto* sub = app.add_subcommand("plan", "Show the kernels, Contiguize steps and costs the planner picks for a view");
  sub->add_option("--op", a->op, "pad | pad-backward | masked-fill")
      ->check(CLI::IsMember({"pad", "pad-backward", "pad_backward", "masked-fill", "masked_fill"}));
  sub->add_option("--mode", a->mode, "constant | reflect | replicate")
      ->check(CLI::IsMember({"constant", "reflect", "replicate", "edge"}));
  sub->add_option("--dtype", a->dtype, "element type (f32, bf16, u8, ...)");
  sub->add_option("--shape", a->shape, "the input view's shape, e.g. 2,3,8,8 (pad-backward: grad_out's)");
  sub->add_option("--strides", a->strides, "its strides in elements (signed; 0 broadcasts); default dense");
  sub->add_option("--offset", a->offset, "its start offset in elements")->check(kInt64);
  sub->add_option("--pad", a->pads, "L,R[,L,R...] in torch F.pad order");
  sub->add_option("--value", a->value, "constant / masked fill value");
  sub->add_option("--mask-shape", a->mask_shape, "masked-fill: the mask's shape (default: the input's)");
  sub->add_option("--mask-strides", a->mask_strides, "masked-fill: the mask's strides (default dense)");
  sub->add_option("--mask-offset", a->mask_offset, "masked-fill: the mask's offset")->check(kInt64);
  auto* det = sub->add_flag("--deterministic-only", a->deterministic_only, "never a nondeterministic kernel (default)");
  auto* allow =
      sub->add_flag("--allow-nondeterministic", a->allow_nondeterministic, "the cheapest kernel, atomic or not");
  auto* prefer = sub->add_flag("--prefer-nondeterministic", a->prefer_nondeterministic, "atomic where one applies");
  det->excludes(allow)->excludes(prefer);
  allow->excludes(prefer);
  sub->add_option("--batch-overhead", a->batch_overhead,
                  "instead: time N small pads submitted alone vs recorded into one batch")
      ->check(CLI::Range(1, 100000));
  set_action(sub, [a, &global, sub]() {
    const bool pad_op = a->op.starts_with("pad");
    if (a->batch_overhead > 0)
      refuse_unused(*sub,
                    {"--op", "--mode", "--dtype", "--shape", "--strides", "--offset", "--pad", "--value",
                     "--mask-shape", "--mask-strides", "--mask-offset", "--deterministic-only",
                     "--allow-nondeterministic", "--prefer-nondeterministic"},
                    "with --batch-overhead (it times a pad of its own)");
    else if (!pad_op)
      refuse_unused(*sub, {"--mode", "--pad"}, "to masked-fill");
    else
      refuse_unused(*sub, {"--mask-shape", "--mask-strides", "--mask-offset"}, fmt::format("to {}", a->op));
    if (pad_op && (a->op != "pad" || a->mode != "constant") && !is_zero_value(a->value))
      refuse_unused(*sub, {"--value"},
                    a->op == "pad" ? fmt::format("with --mode {} (only constant pads fill; 0 is let through)", a->mode)
                                   : fmt::format("to {} (its pads sum into grad_in; 0 is let through)", a->op));
    Context ctx = make_context(global);
    ValidationReport report(ctx);
    if (a->batch_overhead > 0) return report.exit_code(run_overhead(ctx, a->batch_overhead));
    if (a->shape.empty()) fail(ErrorCode::InvalidArgument, "--shape is required (or --batch-overhead N)");
    const auto dtype = parse_dtype(a->dtype);
    if (!dtype) fail(ErrorCode::InvalidArgument, fmt::format("--dtype '{}' is not a dtype", a->dtype));
    planner::Request r;
    r.op = a->op.starts_with("pad") ? (a->op == "pad" ? planner::OpRequest::Pad : planner::OpRequest::PadBackward)
                                    : planner::OpRequest::MaskedFill;
    r.mode = parse_pad_mode(a->mode);
    r.inputs.push_back(view_from(*dtype, a->shape, a->strides, a->offset, "input"));
    if (r.op == planner::OpRequest::MaskedFill)
      r.inputs.push_back(view_from(DType::Bool, a->mask_shape.empty() ? a->shape : a->mask_shape, a->mask_strides,
                                   a->mask_offset, "mask"));
    else
      r.pads = PadSpec::from_torch(r.mode, r.inputs[0].shape.size(),
                                   a->pads.empty() ? std::vector<std::int64_t>{} : parse_int_list(a->pads, "--pad"));
    r.fill = Scalar::parse(a->value);
    r.policy = a->allow_nondeterministic    ? PlanPolicy::AllowNondeterministic
               : a->prefer_nondeterministic ? PlanPolicy::PreferNondeterministic
                                            : PlanPolicy::DeterministicOnly;
    const auto& table = planner::default_cost_table();
    const auto p = planner::plan(r, planner::PlanContext{&ctx.device_info(), &table});
    fmt::print("device: {}\n{}", ctx.device_info().name, planner::describe(p));
    return report.exit_code();
  });
});

}  // namespace
}  // namespace fvk::cli
