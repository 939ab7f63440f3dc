// Execution of plans: every op of a batch is planned (planner.hpp), then its steps are recorded into
// the batch's one command buffer. A hazard tracker puts a barrier only before a step that reads or
// overwrites a buffer written earlier in the batch, or overwrites one read earlier (a pool
// temporary reused); Contiguize outputs come from the device's pool and go back to it as soon as
// their consumer is recorded. The atomic backward's adds, which must follow a barrier after its
// first phase, wait until the tracker records a barrier anyway or the batch is submitted: the
// waiting adds of every op go after one barrier.
#include "fvk/batch.hpp"

#include <fmt/format.h>

#include <chrono>
#include <set>
#include <utility>
#include <vector>

#include "fvk/error.hpp"
#include "ops/contiguize.hpp"
#include "ops/pad_family.hpp"
#include "planner/planner.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace fvk {

std::string_view name(PlanPolicy policy) noexcept {
  switch (policy) {
    case PlanPolicy::DeterministicOnly: return "deterministic-only";
    case PlanPolicy::AllowNondeterministic: return "allow-nondeterministic";
    case PlanPolicy::PreferNondeterministic: return "prefer-nondeterministic";
  }
  return "?";
}

struct Batch::Impl {
  Context& ctx;
  PlanPolicy policy;
  rt::Stream stream;
  planner::PlanContext plan_ctx;
  std::set<VkBuffer> written, read;  // since the last barrier
  // The atomic backwards' second phases (their adds), each waiting for a barrier after its first
  // phase: one barrier before all of them, recorded when a later step depends on one of those ops
  // or at submit, so a batch of independent atomic backwards waits once, not once per op. Their
  // buffers stay in `written` and `read` until then.
  std::vector<ops::SecondPhase> later;
  std::uint32_t t_begin = 0, t_end = 0;
  bool timed = false, submitted = false;
  std::size_t ops = 0, contiguize = 0, barriers = 0;
  double gpu_ns = 0;

  Impl(Context& c, PlanPolicy p)
      : ctx(c),
        policy(p),
        stream(c.runtime(), 4),
        plan_ctx{&c.device_info(), &planner::default_cost_table(), c.runtime().always_split_passes()} {
    timed = c.device_info().timestamps;
    if (timed) t_begin = stream.timestamp();
  }

  void barrier() {
    stream.barrier();
    ++barriers;
  }

  void record_later() {
    if (later.empty()) return;
    // Taken out first: should one of them throw, none is recorded twice by a later call.
    const std::vector<ops::SecondPhase> waiting = std::exchange(later, {});
    barrier();
    for (const auto& rest : waiting) rest(stream);
  }

  // Orders a step that reads `reads` and writes `writes` after every earlier step it depends on.
  void order(std::initializer_list<const rt::Buffer*> reads, std::initializer_list<const rt::Buffer*> writes) {
    bool hazard = false;
    for (const auto* b : reads) hazard = hazard || written.count(b->handle());
    for (const auto* b : writes) hazard = hazard || written.count(b->handle()) || read.count(b->handle());
    if (hazard) {
      record_later();  // the buffers in `written` and `read` include those of the waiting phases
      barrier();
      written.clear();
      read.clear();
    }
    for (const auto* b : reads) read.insert(b->handle());
    for (const auto* b : writes) written.insert(b->handle());
  }

  void check_open() const {
    if (submitted) fail(ErrorCode::InvalidArgument, "batch already submitted; record into a new fvk::Batch");
  }

  Tensor run(const planner::Request& request, const std::vector<const TensorView*>& views) {
    check_open();
    for (std::size_t i = 0; i < views.size(); ++i) {
      if (!views[i]->defined())
        fail(ErrorCode::InvalidArgument,
             fmt::format("{} input {} is an empty view (default-constructed)", planner::name(request.op), i));
      ctx.check_tensor(views[i]->base(), fmt::format("{} input {}'s base", planner::name(request.op), i));
    }
    const planner::Plan plan = planner::plan(request, plan_ctx);
    auto& device = ctx.runtime();
    // Every check before anything is recorded, so a refusal leaves the batch as it was.
    for (const auto& s : plan.steps)
      if (s.kind == planner::Step::Kind::Contiguize)
        ops::check_contiguize(device, s.view, views[s.input]->base().storage()->size(),
                              fmt::format("{} input {}", planner::name(request.op), s.input));
    const auto algorithm = plan.kernel_step().contract->determinism == fkc::Determinism::Bitwise
                               ? BackwardAlgorithm::Deterministic
                               : BackwardAlgorithm::Atomic;
    std::string dispatched;
    switch (request.op) {
      case planner::OpRequest::Pad:
        ops::check_pad(device, plan.geometry, plan.dtype);
        dispatched = ops::pad_kernel(device.info(), request.mode, plan.dtype);
        break;
      case planner::OpRequest::PadBackward:
        ops::check_pad_backward(device, plan.geometry, plan.dtype, algorithm);
        dispatched = ops::pad_backward_kernel(device.info(), request.mode, plan.dtype, algorithm);
        break;
      case planner::OpRequest::MaskedFill:
        ops::check_masked_fill(device, plan.out_shape, plan.dtype);
        dispatched = ops::masked_fill_kernel(plan.dtype);
        break;
    }
    if (dispatched != plan.kernel_step().kernel)
      fail(ErrorCode::Internal,
           fmt::format("the plan chose {} but the wrapper dispatches {}", plan.kernel_step().kernel, dispatched));

    Tensor out = ctx.empty(plan.dtype, plan.out_shape);
    std::vector<const rt::Buffer*> inputs;
    for (const auto* v : views) {
      inputs.push_back(v->base().storage().get());
      stream.keep_alive(v->base().storage());
    }
    stream.keep_alive(out.storage());
    auto& pool = device.temp_pool();
    std::vector<std::shared_ptr<rt::Buffer>> temps;
    for (const auto& s : plan.steps) {
      if (s.kind != planner::Step::Kind::Contiguize) continue;
      auto temp = pool.acquire(static_cast<std::uint64_t>(s.view.numel()) * byte_width(s.view.dtype));
      stream.keep_alive(temp);
      order({inputs[s.input]}, {temp.get()});
      ops::record_contiguize(stream, s.view, *inputs[s.input], *temp);
      inputs[s.input] = temp.get();
      temps.push_back(std::move(temp));
      ++contiguize;
    }
    const rt::Buffer& dst = *out.storage();
    switch (request.op) {
      case planner::OpRequest::Pad:
        order({inputs[0]}, {&dst});
        ops::record_pad(stream, plan.geometry, plan.dtype, *inputs[0], dst, plan.fill_bits);
        break;
      case planner::OpRequest::PadBackward: {
        order({inputs[0]}, {&dst});
        ops::SecondPhase rest;
        ops::record_pad_backward(stream, plan.geometry, plan.dtype, *inputs[0], dst, algorithm, {}, &rest);
        if (rest) later.push_back(std::move(rest));
        break;
      }
      case planner::OpRequest::MaskedFill:
        order({inputs[0], inputs[1]}, {&dst});
        ops::record_masked_fill(stream, static_cast<std::uint32_t>(numel(plan.out_shape)), plan.dtype, *inputs[0],
                                *inputs[1], dst, plan.fill_bits);
        break;
    }
    // Reusable by later steps of this batch (the tracker orders the overwrite) and by later batches.
    for (auto& t : temps) pool.release(std::move(t));
    ++ops;
    return out;
  }

  void submit() {
    check_open();
    record_later();
    if (timed) t_end = stream.timestamp();
    stream.host_barrier();  // outputs visible to transfers and the host
    stream.submit_and_wait();
    submitted = true;
    gpu_ns = timed ? stream.elapsed_ns(t_begin, t_end) : 0;
  }
};

Batch::Batch(Context& ctx, PlanPolicy policy) : impl_(std::make_unique<Impl>(ctx, policy)) {}
Batch::~Batch() = default;

Tensor Batch::pad(const TensorView& input, const PadSpec& spec, const Scalar& value) {
  planner::Request r{planner::OpRequest::Pad, spec.mode, {input.layout()}, spec, value, impl_->policy};
  return impl_->run(r, {&input});
}

Tensor Batch::pad_backward(const TensorView& grad_out, const PadSpec& spec) {
  planner::Request r{
      planner::OpRequest::PadBackward, spec.mode, {grad_out.layout()}, spec, Scalar::from_int(0), impl_->policy};
  return impl_->run(r, {&grad_out});
}

Tensor Batch::masked_fill(const TensorView& input, const TensorView& mask, const Scalar& value) {
  planner::Request r{
      planner::OpRequest::MaskedFill, PadMode::Constant, {input.layout(), mask.layout()}, {}, value, impl_->policy};
  return impl_->run(r, {&input, &mask});
}

void Batch::submit() { impl_->submit(); }
std::size_t Batch::ops() const { return impl_->ops; }
std::size_t Batch::dispatches() const { return impl_->stream.dispatch_count(); }
std::size_t Batch::contiguize_steps() const { return impl_->contiguize; }
std::size_t Batch::barriers() const { return impl_->barriers; }
double Batch::gpu_ns() const { return impl_->gpu_ns; }

namespace {
template <typename Fn>
Tensor one_shot(Context& ctx, PlanPolicy policy, Fn&& fn) {
  Batch b(ctx, policy);
  Tensor out = fn(b);
  b.submit();
  ctx.set_last_kernel_ns(b.gpu_ns());
  return out;
}
}  // namespace

Tensor pad(Context& ctx, const TensorView& input, const PadSpec& spec, const Scalar& value, PlanPolicy policy) {
  return one_shot(ctx, policy, [&](Batch& b) { return b.pad(input, spec, value); });
}

Tensor pad_backward(Context& ctx, const TensorView& grad_out, const PadSpec& spec, PlanPolicy policy) {
  return one_shot(ctx, policy, [&](Batch& b) { return b.pad_backward(grad_out, spec); });
}

Tensor masked_fill(Context& ctx, const TensorView& input, const TensorView& mask, const Scalar& value,
                   PlanPolicy policy) {
  return one_shot(ctx, policy, [&](Batch& b) { return b.masked_fill(input, mask, value); });
}

}  // namespace fvk
