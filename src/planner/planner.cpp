#include "planner/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "fkc/catalog.hpp"
#include "fvk/error.hpp"
#include "judge/cost_table.hpp"
#include "ops/contiguize.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::planner {
namespace {

// The kernel's pad mode. The schema has no mode field: the mode is part of the kernel's identity,
// spelled as one '_'-separated word of its name (pad_reflect_b4, pad_backward_const_b2, ...).
std::optional<PadMode> kernel_mode(const fkc::Contract& c) {
  std::size_t start = 0;
  while (start <= c.kernel.size()) {
    const auto end = std::min(c.kernel.find('_', start), c.kernel.size());
    const auto word = std::string_view(c.kernel).substr(start, end - start);
    if (word == "const") return PadMode::Constant;
    if (word == "reflect") return PadMode::Reflect;
    if (word == "replicate") return PadMode::Replicate;
    start = end + 1;
  }
  return std::nullopt;
}

// The layout features a contract input does not accept as they are.
std::vector<std::string> unaccepted(const fkc::LayoutRule& rule, const LayoutFeatures& f) {
  using A = fkc::LayoutAcceptance;
  std::vector<std::string> out;
  if (f.strided && rule.strided != A::Accepted) out.push_back("strided");
  if (f.broadcast && rule.broadcast_stride0 != A::Accepted) out.push_back("broadcast_stride0");
  if (f.offset && rule.start_offset != A::Accepted) out.push_back("start_offset");
  if (f.reversed && rule.reverse_strides != A::Accepted) out.push_back("reverse_strides");
  return out;
}

std::string dtype_list(const std::vector<DType>& ds) {
  std::vector<std::string_view> names;
  for (auto d : ds) names.push_back(fvk::name(d));
  return fmt::format("{}", fmt::join(names, ", "));
}

// revision_hash hashes SPIR-V and canonical JSON: computed once per kernel.
const std::string& cached_revision(const fkc::Contract& c) {
  static std::mutex mutex;
  static std::map<const fkc::Contract*, std::string> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(&c);
  if (it == cache.end()) it = cache.emplace(&c, fkc::revision_hash(c)).first;
  return it->second;
}

StepCost cost_of(const fkc::Contract& c, const fkc::SymbolValues& symbols, const PlanContext& ctx) {
  StepCost cost;
  if (c.cost.bytes_moved) cost.bytes_moved = c.cost.bytes_moved->evaluate(symbols);
  if (ctx.device && ctx.costs && ctx.costs->size() > 0)
    if (auto m = ctx.costs->find(*ctx.device, c.kernel, cached_revision(c))) {
      cost.measured_ns = m->estimate_ns(cost.bytes_moved);
      cost.source = CostSource::Measured;
    }
  return cost;
}

PlanCost sum(const std::vector<Step>& steps) {
  PlanCost total;
  bool all_measured = true;
  double ns = 0;
  for (const auto& s : steps) {
    total.bytes_moved += s.cost.bytes_moved;
    all_measured = all_measured && s.cost.measured_ns.has_value();
    ns += s.cost.measured_ns.value_or(0);
  }
  if (all_measured) total.measured_ns = ns;
  return total;
}

// True when a is cheaper than b: in measured ns when both are fully measured, else in bytes moved.
bool cheaper(const PlanCost& a, const PlanCost& b) {
  if (a.measured_ns && b.measured_ns) return *a.measured_ns < *b.measured_ns;
  return a.bytes_moved < b.bytes_moved;
}

bool same_cost(const PlanCost& a, const PlanCost& b) { return !cheaper(a, b) && !cheaper(b, a); }

std::string request_words(const Request& r) {
  const auto& data = r.inputs.front();
  return fmt::format("{}{} of {} rank {} ({})", name(r.op),
                     r.op == OpRequest::MaskedFill ? "" : fmt::format(" {}", fvk::name(r.mode)), fvk::name(data.dtype),
                     data.shape.size(), data.features().str());
}

// Why one candidate does not apply: the stage it failed at (for picking the message) and the text.
struct Rejection {
  int stage = 0;  // 0 a portable build where the fast one runs (never named), 1 mode, 2 dtype, 3 rank,
                  // 4 feature, 5 determinism, 6 layout
  std::string why;
  int input = -1;  // stage 2: the input whose dtype was refused
};

const char* input_name(OpRequest op, std::size_t i) {
  if (op == OpRequest::PadBackward) return "grad_out";
  return i == 0 ? "input" : "mask";
}

}  // namespace

std::string_view name(OpRequest op) noexcept {
  switch (op) {
    case OpRequest::Pad: return "pad";
    case OpRequest::PadBackward: return "pad_backward";
    case OpRequest::MaskedFill: return "masked_fill";
  }
  return "?";
}

fkc::OpKind op_kind(OpRequest op) noexcept {
  switch (op) {
    case OpRequest::Pad: return fkc::OpKind::Pad;
    case OpRequest::PadBackward: return fkc::OpKind::PadBackward;
    case OpRequest::MaskedFill: return fkc::OpKind::MaskedFill;
  }
  return fkc::OpKind::Pad;
}

std::string PlanCost::str() const {
  if (measured_ns) return fmt::format("{:.0f} ns measured ({:.0f} bytes moved)", *measured_ns, bytes_moved);
  return fmt::format("{:.0f} bytes moved (formula)", bytes_moved);
}

const judge::CostTable& default_cost_table() {
  static const judge::CostTable table = judge::CostTable::load(judge::CostTable::default_path());
  return table;
}

Plan plan(const Request& request, const PlanContext& ctx) {
  const std::size_t want_inputs = request.op == OpRequest::MaskedFill ? 2 : 1;
  if (request.inputs.size() != want_inputs)
    fail(ErrorCode::InvalidArgument,
         fmt::format("{} takes {} input view(s), {} given", name(request.op), want_inputs, request.inputs.size()));
  for (std::size_t i = 0; i < request.inputs.size(); ++i) {
    const auto& v = request.inputs[i];
    if (v.strides.size() != v.shape.size())
      fail(ErrorCode::InvalidArgument,
           fmt::format("{} has {} strides for rank {}", input_name(request.op, i), v.strides.size(), v.shape.size()));
  }
  const ViewLayout& data = request.inputs.front();
  const auto rank = static_cast<std::uint32_t>(data.shape.size());
  // The mask's own rules first: a mask of another dtype or shape is named as such, not as a dtype
  // no kernel takes.
  if (request.op == OpRequest::MaskedFill)
    check_masked_fill(data.shape, request.inputs[1].dtype, request.inputs[1].shape);

  // 1. Candidates by what the contracts say about the request alone.
  std::vector<const fkc::Contract*> survivors;
  std::vector<std::pair<const fkc::Contract*, Rejection>> rejected;
  for (const auto* c : fkc::contracts_for(op_kind(request.op))) {
    auto reject = [&](int stage, std::string why) { rejected.push_back({c, {stage, std::move(why)}}); };
    if (request.op != OpRequest::MaskedFill && kernel_mode(*c) != request.mode) {
      reject(1, "another mode");
      continue;
    }
    if (c->inputs.size() != request.inputs.size()) {
      reject(1, fmt::format("takes {} inputs", c->inputs.size()));
      continue;
    }
    int bad_dtype = -1;
    for (std::size_t i = 0; i < c->inputs.size() && bad_dtype < 0; ++i)
      if (!c->inputs[i].accepts(request.inputs[i].dtype)) bad_dtype = static_cast<int>(i);
    if (bad_dtype >= 0) {
      rejected.push_back({c, {2, "", bad_dtype}});
      continue;
    }
    std::string bad_rank;
    for (std::size_t i = 0; i < c->inputs.size() && bad_rank.empty(); ++i) {
      const auto r = static_cast<std::uint32_t>(request.inputs[i].shape.size());
      if (!c->inputs[i].rank.contains(r))
        bad_rank = fmt::format("{} rank {} is outside {}'s accepted ranks {}", c->inputs[i].name, r, c->kernel,
                               c->inputs[i].rank.str());
    }
    if (!bad_rank.empty()) {
      reject(3, bad_rank);
      continue;
    }
    if (ctx.device) {
      if (const auto missing = ops::missing_features(*ctx.device, *c); !missing.empty()) {
        reject(4, ops::missing_features_message(c->kernel, missing, *ctx.device));
        continue;
      }
      // A portable build stands in for its fast build only where the device cannot run that one
      // (the wrappers choose the same way).
      if (const auto fast = ops::fast_build_of(c->kernel);
          !fast.empty() && ops::usable_build(*ctx.device, fast) == fast) {
        reject(0, fmt::format("{} is the portable build of {}, which '{}' runs", c->kernel, fast, ctx.device->name));
        continue;
      }
      // A device that ends long loops cannot run the deterministic backward's longest sums.
      if (request.op == OpRequest::PadBackward && request.mode != PadMode::Constant &&
          c->determinism == fkc::Determinism::Bitwise && ctx.device->max_loop_iterations > 0) {
        std::uint64_t need = 0;
        try {
          need = ops::det_backward_loop_iterations(
              infer_pad_backward(data.shape, PadSpec{request.mode, request.pads.left, request.pads.right}), data.dtype,
              ctx.always_split_passes);
        } catch (const Error&) {
          // The op's own rules reject the request below, with their own message.
        }
        if (need > ctx.device->max_loop_iterations) {
          reject(4, fmt::format("{} may need {} loop iterations per invocation and '{}' ends loops after {}", c->kernel,
                                need, ctx.device->name, ctx.device->max_loop_iterations));
          continue;
        }
      }
    }
    if (request.policy == PlanPolicy::DeterministicOnly && c->determinism != fkc::Determinism::Bitwise) {
      reject(5,
             fmt::format("{} is {} and the policy is deterministic-only", c->kernel, fkc::to_string(c->determinism)));
      continue;
    }
    survivors.push_back(c);
  }
  auto no_kernel = [&](const std::string& detail) -> void {
    fail(ErrorCode::NoKernel,
         fmt::format("no kernel for {} under policy {}: {}", request_words(request), name(request.policy), detail));
  };
  auto explain_rejections = [&]() {
    int furthest = 0;
    for (const auto& [c, r] : rejected) furthest = std::max(furthest, r.stage);
    // Past the dtype, each candidate failed one constraint of its own (a deterministic kernel a
    // device limit, an atomic one the policy): name every one from the device stage on.
    std::vector<std::string> reasons;
    for (const auto& [c, r] : rejected)
      if ((r.stage == furthest || (furthest == 5 && r.stage == 4)) &&
          std::find(reasons.begin(), reasons.end(), r.why) == reasons.end())
        reasons.push_back(r.why);
    if (furthest <= 1) return std::string("no contract of this op kind implements this mode");
    if (furthest == 2) {
      // One line per refused input: its dtype and the union of what the candidates accept.
      std::map<int, std::vector<DType>> accepted;
      std::map<int, std::vector<std::string>> kernels;
      for (const auto& [c, r] : rejected)
        if (r.stage == 2) {
          for (auto d : c->inputs[r.input].dtypes)
            if (std::find(accepted[r.input].begin(), accepted[r.input].end(), d) == accepted[r.input].end())
              accepted[r.input].push_back(d);
          kernels[r.input].push_back(c->kernel);
        }
      std::vector<std::string> lines;
      for (const auto& [i, ds] : accepted)
        lines.push_back(fmt::format("{} dtype {} is accepted by none of {} ({} candidates; they accept {})",
                                    input_name(request.op, i), fvk::name(request.inputs[i].dtype),
                                    fmt::join(kernels[i], ", "), kernels[i].size(), dtype_list(ds)));
      return fmt::format("no candidate accepts the dtype: {}", fmt::join(lines, "; "));
    }
    const char* what = furthest == 3   ? "rank"
                       : furthest == 4 ? "device feature or limit"
                       : furthest == 5 ? "determinism"
                                       : "layout";
    // At the determinism stage some candidate (an atomic kernel) passed every other check, and only
    // the deterministic-only policy turned it away: name the way round.
    std::string hint;
    if (furthest == 5) {
      std::vector<std::string> policy_only;
      for (const auto& [c, r] : rejected)
        if (r.stage == 5) policy_only.push_back(c->kernel);
      hint = fmt::format(
          "; a policy that allows nondeterministic kernels (allow-nondeterministic, prefer-nondeterministic) takes {}",
          fmt::join(policy_only, ", "));
    }
    return fmt::format("no candidate meets the {} constraint ({}){}", what, fmt::join(reasons, "; "), hint);
  };
  if (survivors.empty()) no_kernel(explain_rejections());

  // 2. The op's own rules (shared with the wrappers, the reference and the CLI).
  Plan p;
  p.request = request;
  p.dtype = data.dtype;
  fkc::SymbolValues op_symbols;
  if (request.op == OpRequest::MaskedFill) {
    p.out_shape = data.shape;
    p.fill_bits = request.fill.bits(data.dtype);
    op_symbols = {{"n", double(data.numel())}, {"n_in", double(data.numel())}, {"n_out", double(data.numel())}};
  } else {
    const PadSpec spec{request.mode, request.pads.left, request.pads.right};
    if (request.op == OpRequest::Pad) {
      p.geometry = infer_pad(data.shape, spec);
      p.out_shape = p.geometry.out;
      p.fill_bits = request.mode == PadMode::Constant ? request.fill.bits(data.dtype) : 0;
    } else {
      p.geometry = infer_pad_backward(data.shape, spec);
      p.out_shape = p.geometry.in;
    }
    op_symbols = {{"n_in", double(numel(p.geometry.in))}, {"n_out", double(numel(p.geometry.out))}};
  }
  op_symbols["rank"] = rank;

  // 3. Per candidate: Contiguize steps for the inputs it cannot read as they are, then its cost.
  struct Option {
    const fkc::Contract* contract;
    std::vector<Step> steps;
    PlanCost cost;
  };
  std::vector<Option> options;
  for (const auto* c : survivors) {
    Option o{c, {}, {}};
    std::string layout_problem;
    for (std::size_t i = 0; i < request.inputs.size() && layout_problem.empty(); ++i) {
      const auto& view = request.inputs[i];
      const auto features = view.features();
      if (features.contiguous) continue;
      const auto missing = unaccepted(c->inputs[i].layout, features);
      if (missing.empty()) continue;  // the kernel walks this layout itself
      if (c->caps.awkward_layout_strategy != fkc::AwkwardLayoutStrategy::RequiresContiguous) {
        layout_problem = fmt::format("{} does not take a {} {} ({}: {})", c->kernel, features.str(), c->inputs[i].name,
                                     fkc::to_string(c->caps.awkward_layout_strategy), fmt::join(missing, ", "));
        continue;
      }
      // A Contiguize kernel whose contract accepts this view as it is.
      const ViewLayout merged = ops::coalesce(view);
      const fkc::Contract* realize = nullptr;
      for (const auto* k : fkc::contracts_for(fkc::OpKind::Contiguize)) {
        const auto& in = k->data_input();
        if (in.accepts(view.dtype) && in.rank.contains(static_cast<std::uint32_t>(merged.shape.size())) &&
            unaccepted(in.layout, features).empty() &&
            k->caps.awkward_layout_strategy == fkc::AwkwardLayoutStrategy::Native) {
          realize = k;
          break;
        }
      }
      if (!realize) {
        layout_problem = fmt::format(
            "{} needs a contiguous {} and no Contiguize kernel takes a {} view of {} with {} "
            "axes after merging",
            c->kernel, c->inputs[i].name, features.str(), fvk::name(view.dtype), merged.shape.size());
        continue;
      }
      Step s;
      s.kind = Step::Kind::Contiguize;
      s.contract = realize;
      s.kernel = realize->kernel;
      s.input = static_cast<int>(i);
      s.view = view;
      s.symbols = realize->base_symbols();
      s.symbols["n"] = s.symbols["n_in"] = s.symbols["n_out"] = double(view.numel());
      s.symbols["rank"] = double(merged.shape.size());
      s.cost = cost_of(*realize, s.symbols, ctx);
      o.steps.push_back(std::move(s));
    }
    if (!layout_problem.empty()) {
      rejected.push_back({c, {6, layout_problem}});
      continue;
    }
    Step k;
    k.contract = c;
    k.kernel = c->kernel;
    k.symbols = c->base_symbols();
    for (const auto& [key, v] : op_symbols) k.symbols[key] = v;
    k.cost = cost_of(*c, k.symbols, ctx);
    o.steps.push_back(std::move(k));
    o.cost = sum(o.steps);
    options.push_back(std::move(o));
  }
  if (options.empty()) no_kernel(explain_rejections());

  // 4. The choice: nondeterministic ones first when the policy prefers them; then the cheapest;
  // on equal cost the deterministic one; then document order.
  const bool prefer_nondet = request.policy == PlanPolicy::PreferNondeterministic &&
                             std::any_of(options.begin(), options.end(), [](const Option& o) {
                               return o.contract->determinism != fkc::Determinism::Bitwise;
                             });
  const Option* best = nullptr;
  for (const auto& o : options) {
    if (prefer_nondet && o.contract->determinism == fkc::Determinism::Bitwise) continue;
    if (!best || cheaper(o.cost, best->cost) ||
        (same_cost(o.cost, best->cost) && o.contract->determinism == fkc::Determinism::Bitwise &&
         best->contract->determinism != fkc::Determinism::Bitwise))
      best = &o;
  }
  p.steps = best->steps;
  p.cost = best->cost;
  for (const auto& o : options)
    if (&o != best) p.alternatives.emplace_back(o.contract->kernel, o.cost);
  return p;
}

std::string describe(const Plan& p) {
  std::string out;
  const auto& r = p.request;
  out += fmt::format("request: {}, policy {}\n", request_words(r), name(r.policy));
  for (std::size_t i = 0; i < r.inputs.size(); ++i) {
    const auto& v = r.inputs[i];
    out += fmt::format("  {}: shape {} strides {} offset {} -> {}\n", input_name(r.op, i), to_string(v.shape),
                       to_string(v.strides), v.offset, v.features().str());
  }
  out += fmt::format("output: shape {} ({}, contiguous)\n", to_string(p.out_shape), fvk::name(p.dtype));
  out += "steps:\n";
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const auto& s = p.steps[i];
    const std::string what = s.kind == Step::Kind::Contiguize
                                 ? fmt::format("contiguize {}", input_name(r.op, static_cast<std::size_t>(s.input)))
                                 : std::string(name(r.op));
    const std::string cost =
        s.cost.measured_ns ? fmt::format("{:.0f} ns measured ({:.0f} bytes)", *s.cost.measured_ns, s.cost.bytes_moved)
                           : fmt::format("{:.0f} bytes (formula)", s.cost.bytes_moved);
    out += fmt::format("  {}. {:<22} {:<34} {} [{}]\n", i + 1, what, s.kernel, cost,
                       fkc::to_string(s.contract->determinism));
  }
  out += fmt::format("total: {}\n", p.cost.str());
  for (const auto& [kernel, cost] : p.alternatives) out += fmt::format("  not chosen: {} ({})\n", kernel, cost.str());
  return out;
}

}  // namespace fvk::planner
