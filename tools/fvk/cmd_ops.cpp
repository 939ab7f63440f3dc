// fvk pad / pad-backward / masked-fill: run one op on .npy files, through the planner. A Fortran-order
// file is uploaded as stored and read as a column-major strided view (the plan realizes it).
#include <fmt/format.h>

#include "cli_util.hpp"
#include "commands.hpp"
#include "fvk/batch.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "io/npy.hpp"
#include "planner/planner.hpp"

namespace fvk::cli {
namespace {

struct PadArgs {
  std::string in, out, mode = "constant", pads, value = "0", dtype;
  bool atomic = false;
};

PadSpec spec_from(const PadArgs& a, std::size_t rank) {
  return PadSpec::from_torch(parse_pad_mode(a.mode), rank, parse_int_list(a.pads, "--pad"));
}

// Whether the planner finds a kernel for this backward under the atomic kernels' policy.
bool atomic_plans(const Context& ctx, const TensorView& grad_out, const PadSpec& spec) {
  const planner::Request r{planner::OpRequest::PadBackward,   spec.mode, {grad_out.layout()}, spec, Scalar::from_int(0),
                           PlanPolicy::PreferNondeterministic};
  try {
    (void)planner::plan(r, planner::PlanContext{&ctx.device_info(), nullptr});
    return true;
  } catch (const Error&) {
    return false;
  }
}

void add_pad_options(CLI::App* sub, PadArgs& a) {
  sub->add_option("--mode", a.mode, "constant | reflect | replicate")
      ->check(CLI::IsMember({"constant", "reflect", "replicate", "edge"}));
  sub->add_option("--pad", a.pads, "L,R[,L,R...]: pairs from the last dimension backwards (torch F.pad order)")
      ->required();
  sub->add_option("--dtype", a.dtype, "read 2-byte data as this dtype (bf16)");
}

Registrar reg_pad([](CLI::App& app, GlobalOptions& global) {
  auto a = std::make_shared<PadArgs>();
  auto* sub = app.add_subcommand("pad", "Pad a tensor (.npy) like torch.nn.functional.pad");
  sub->add_option("input", a->in, "input .npy")->required();
  sub->add_option("output", a->out, "output .npy")->required();
  add_pad_options(sub, *a);
  sub->add_option("--value", a->value, "constant fill, a number in the tensor's dtype (bool: 0/1/true/false)");
  set_action(sub, [a, &global, sub]() {
    if (a->mode != "constant" && !is_zero_value(a->value))
      refuse_unused(*sub, {"--value"},
                    fmt::format("with --mode {} (only constant pads fill; 0 is let through)", a->mode));
    const NpyInput in = read_input(a->in, a->dtype);
    const PadSpec spec = spec_from(*a, in.tensor.shape.size());
    const Scalar value = Scalar::parse(a->value);
    if (spec.mode == PadMode::Constant) (void)value.bits(in.tensor.dtype);  // range-check before any work
    check_writable(a->out, "output");
    Context ctx = make_context(global);
    ValidationReport report(ctx);
    const Tensor out = pad(ctx, upload_view(ctx, in), spec, value);
    io::write_npy(a->out, ctx.download(out));
    return report.exit_code();
  });
});

Registrar reg_backward([](CLI::App& app, GlobalOptions& global) {
  auto a = std::make_shared<PadArgs>();
  auto* sub = app.add_subcommand("pad-backward", "Gradient of a pad: grad_in from grad_out");
  sub->add_option("grad_out", a->in, "grad_out .npy (the padded shape)")->required();
  sub->add_option("grad_in", a->out, "grad_in .npy to write")->required();
  add_pad_options(sub, *a);
  sub->add_flag("--atomic", a->atomic, "use the atomic (nondeterministic) reflect/replicate kernels");
  set_action(sub, [a, &global]() {
    const NpyInput grad_out = read_input(a->in, a->dtype);
    const PadSpec spec = spec_from(*a, grad_out.tensor.shape.size());
    check_writable(a->out, "grad_in");
    Context ctx = make_context(global);
    ValidationReport report(ctx);
    const TensorView view = upload_view(ctx, grad_out);
    const PlanPolicy policy = a->atomic ? PlanPolicy::PreferNondeterministic : PlanPolicy::DeterministicOnly;
    const Tensor grad_in = [&] {
      try {
        return pad_backward(ctx, view, spec, policy);
      } catch (const Error& e) {
        // Refused under the default policy where the atomic kernels' policy plans the op: the flag
        // that asks for it is the way round (the planner names the policy; here it is a flag).
        if (e.code() != ErrorCode::NoKernel || policy != PlanPolicy::DeterministicOnly ||
            !atomic_plans(ctx, view, spec))
          throw;
        fail(e.code(), fmt::format("{} (fvk pad-backward --atomic runs it)", e.message()));
      }
    }();
    io::write_npy(a->out, ctx.download(grad_in));
    return report.exit_code();
  });
});

Registrar reg_masked([](CLI::App& app, GlobalOptions& global) {
  auto a = std::make_shared<PadArgs>();
  auto mask_path = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("masked-fill", "out = mask ? value : input");
  sub->add_option("input", a->in, "input .npy")->required();
  sub->add_option("mask", *mask_path, "bool mask .npy of the input's shape")->required();
  sub->add_option("output", a->out, "output .npy")->required();
  sub->add_option("--value", a->value, "fill, a number in the tensor's dtype")->required();
  sub->add_option("--dtype", a->dtype, "read 2-byte data as this dtype (bf16)");
  set_action(sub, [a, mask_path, &global]() {
    const NpyInput in = read_input(a->in, a->dtype);
    const NpyInput mask = read_input(*mask_path, "");
    const Scalar value = Scalar::parse(a->value);
    (void)value.bits(in.tensor.dtype);
    check_writable(a->out, "output");
    Context ctx = make_context(global);
    ValidationReport report(ctx);
    const Tensor out = masked_fill(ctx, upload_view(ctx, in), upload_view(ctx, mask), value);
    io::write_npy(a->out, ctx.download(out));
    return report.exit_code();
  });
});

}  // namespace
}  // namespace fvk::cli
