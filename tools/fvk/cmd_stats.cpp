// fvk stats: what the driver reports about each kernel's compiled pipeline (registers, spills,
// shared memory, instruction counts: whatever it names), per pass. A profiling aid: a pass
// that needs many registers keeps few subgroups in flight to hide memory latency.
#include <fmt/format.h>

#include <algorithm>

#include "cli_util.hpp"
#include "commands.hpp"
#include "fkc/catalog.hpp"
#include "fvk/error.hpp"
#include "fvk/pad_spec.hpp"
#include "judge/bench.hpp"
#include "ops/gather_plan.hpp"
#include "ops/launch.hpp"
#include "ops/shape_constant.hpp"
#include "runtime/device.hpp"
#include "runtime/embedded.hpp"

namespace fvk::cli {
namespace {

// The plan of pad.comp's forward kernel `name` for the merged geometry `g`, on a large destination
// whose pipelines are built for the geometry; an empty plan (the one pass) for other kernels.
ops::GatherPlan forward_plan(const std::string& name, const PadGeometry& g) {
  const fkc::Contract* contract = fkc::find_contract(name);
  if (contract == nullptr || contract->op_kind != fkc::OpKind::Pad) return {};
  ops::GatherShape shape = ops::gather_shape(g, contract->element_bytes, false);
  shape.big = shape.aligned_rows = shape.group_rows = true;
  return ops::plan_gather(shape);
}

Registrar reg([](CLI::App& app, GlobalOptions& global) {
  auto* sub = app.add_subcommand("stats", "Print the driver's statistics of each kernel's compiled pipeline");
  auto filter = std::make_shared<std::string>();
  auto passes = std::make_shared<std::string>("0");
  auto ranks = std::make_shared<std::string>("0");
  auto describe = std::make_shared<bool>(false);
  sub->add_option("--kernel", *filter, "only kernels whose name contains one of these comma-separated words");
  sub->add_option("--pass", *passes,
                  "passes to compile, comma-separated (each pass is a SPIR-V module of its own; a kernel "
                  "without that pass is left out; 0: the one pass)");
  sub->add_option("--rank", *ranks,
                  "specialization constant 1 values, comma-separated (the rank pad.comp's kernels and the "
                  "deterministic backward are built for, on every pass asked for, even those the wrapper "
                  "leaves on the push constant; 0: read at run time)");
  sub->add_flag("--describe", *describe, "also print the driver's description of each statistic");
  auto shape = std::make_shared<std::string>();
  auto left = std::make_shared<std::string>();
  auto right = std::make_shared<std::string>();
  sub->add_option("--shape", *shape,
                  "build each pipeline for this geometry (the input shape, comma-separated, with --left and "
                  "--right): its dims, pads and element count as specialization constants, as the ops do on "
                  "large tensors; the rank is then the merged geometry's, and --rank is not used");
  sub->add_option("--left", *left, "with --shape: the pads before each axis, comma-separated");
  sub->add_option("--right", *right, "with --shape: the pads after each axis, comma-separated");
  set_action(sub, [&global, filter, passes, ranks, describe, shape, left, right]() {
    const auto values = parse_int_list(*passes, "--pass");
    for (const auto v : values)
      if (v < 0) fail(ErrorCode::InvalidArgument, fmt::format("--pass {}: a pass number is 0 or more", v));
    const auto rank_values = parse_int_list(*ranks, "--rank");
    for (const auto r : rank_values)
      if (r < 0 || r > 8) fail(ErrorCode::InvalidArgument, fmt::format("--rank {}: a rank from 1 to 8, or 0", r));
    std::vector<std::pair<std::string, std::size_t>> names;  // (kernel, its passes)
    for (const auto& k : embedded::table())
      if (judge::matches_filter(std::string(k.name), *filter)) names.emplace_back(k.name, k.passes.size());
    if (names.empty()) fail(ErrorCode::InvalidArgument, fmt::format("--kernel '{}' matches no kernel", *filter));
    for (const auto v : values)
      if (std::none_of(names.begin(), names.end(),
                       [&](const auto& n) { return static_cast<std::size_t>(v) < n.second; }))
        fail(ErrorCode::InvalidArgument,
             fmt::format("--pass {}: no kernel matching --kernel '{}' has that pass", v, *filter));
    std::vector<rt::SpecConstant> constants;
    std::uint32_t geometry_rank = 0;
    PadGeometry merged;
    if (!shape->empty()) {
      Shape in;
      for (const auto d : parse_int_list(*shape, "--shape")) in.push_back(d);
      PadSpec spec{PadMode::Constant, parse_int_list(*left, "--left"), parse_int_list(*right, "--right")};
      if (spec.left.size() != in.size() || spec.right.size() != in.size())
        fail(ErrorCode::InvalidArgument,
             fmt::format("--left and --right: one pad per axis of --shape ({} axes), got {} and {}", in.size(),
                         spec.left.size(), spec.right.size()));
      const PadGeometry g = infer_pad(in, spec);  // the ops' rules: pads of 0 or more, sizes in range
      merged = ops::coalesce(g);
      // The shape constants hold ranks 1 to 7 (kernels/shape_constants.glsl); the ops run a geometry
      // of 8 axes without them (ops::geometry_build), so there are no such pipelines to show.
      if (merged.in.size() > 7)
        fail(ErrorCode::InvalidArgument,
             fmt::format("--shape, --left, --right: the geometry keeps {} axes after merging the unpadded "
                         "neighbours; pipelines with shape constants exist for 1 to 7 axes (pad one axis less, "
                         "or leave --shape out)",
                         merged.in.size()));
      constants = ops::shape_constants(merged, static_cast<std::uint32_t>(numel(merged.out)));
      geometry_rank = static_cast<std::uint32_t>(merged.in.size());
    }
    ContextOptions options = context_options(global);
    options.capture_pipeline_statistics = true;
    Context ctx(options);
    ValidationReport report(ctx);
    auto& device = ctx.runtime();
    fmt::print("pipeline statistics on {} ({})\n", ctx.device_info().name, ctx.device_info().driver);
    for (const auto& [name, pass_count] : names) {
      for (const auto v : values) {
        if (static_cast<std::size_t>(v) >= pass_count) continue;
        // The group pass built for --shape also takes its stage and pieces, as the wrapper sets them.
        std::vector<rt::SpecConstant> pass_constants = constants;
        std::string group;
        if (!constants.empty() && v == static_cast<std::int64_t>(ops::GatherPass::Group)) {
          if (const auto plan = forward_plan(name, merged); plan.pass == ops::GatherPass::Group) {
            for (const auto& c : ops::group_constants(plan)) pass_constants.push_back(c);
            group = fmt::format(", {} piece(s) a group, a stage of {} words", plan.pieces, plan.stage_words);
          } else {
            group = ", which the wrapper would not run in the group pass (its default stage and pieces)";
          }
        }
        for (const auto r : constants.empty() ? rank_values : std::vector<std::int64_t>{geometry_rank}) {
          const auto& kernel =
              device.kernel(name, static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(r), pass_constants);
          fmt::print("\n{} (pass {}, rank {}{}{})\n", name, v, r, constants.empty() ? "" : ", built for --shape",
                     group);
          for (const auto& s : device.pipeline_statistics(kernel)) {
            fmt::print("  {:<24} {:<40} {:>12}\n", s.executable, s.name, s.value);
            if (*describe) fmt::print("  {:<24} {}\n", "", s.description);
          }
        }
      }
    }
    return report.exit_code();
  });
});

}  // namespace
}  // namespace fvk::cli
