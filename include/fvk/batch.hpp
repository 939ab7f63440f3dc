// Planned ops on tensor views of any layout, and batches of them in one submission.
//
//   fvk::Batch b(ctx);
//   fvk::Tensor y = b.pad(x.permute({1, 0}), spec, value);   // Contiguize + pad, one barrier between
//   fvk::Tensor z = b.masked_fill(y, mask, fvk::Scalar::from_int(0));  // reads y: ordered after it
//   b.submit();                                              // one command buffer, one submission
//   ctx.download(z);
//
// Each op is planned from the contracts (src/planner/): the kernel that accepts the dtype, rank and
// layout, with a Contiguize step before any input the kernel cannot read as it is. Barriers go only
// where a step reads or overwrites a buffer an earlier step of the batch wrote (or read), so
// independent ops run back to back. An atomic pad backward has two phases with a barrier between
// them (grad_in written once, then the pad's contributions added); its adds wait for the next
// barrier the batch records anyway (before a step that depends on a waiting op) or for submit(),
// so a run of independent atomic backwards shares one barrier instead of one per op.
// Contiguize outputs are temporaries from the device's pool, reused within and across batches.
// Outputs hold their values once submit() returns. A batch refers to its Context, which must outlive
// it (the tensors need not: they hold the device themselves).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "fvk/context.hpp"
#include "fvk/pad_spec.hpp"
#include "fvk/scalar.hpp"
#include "fvk/tensor.hpp"
#include "fvk/tensor_view.hpp"

namespace fvk {

enum class PlanPolicy {
  DeterministicOnly,       // never a nondeterministic kernel (the default)
  AllowNondeterministic,   // the cheapest kernel; on equal cost the deterministic one
  PreferNondeterministic,  // a nondeterministic kernel where one applies (pad backward with atomics)
};

std::string_view name(PlanPolicy policy) noexcept;

class Batch {
 public:
  explicit Batch(Context& ctx, PlanPolicy policy = PlanPolicy::DeterministicOnly);
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch();  // a batch never submitted is discarded (its outputs stay undefined)

  Tensor pad(const TensorView& input, const PadSpec& spec, const Scalar& value = Scalar::from_int(0));
  Tensor pad_backward(const TensorView& grad_out, const PadSpec& spec);
  Tensor masked_fill(const TensorView& input, const TensorView& mask, const Scalar& value);

  // Ends recording, submits once and waits.
  void submit();

  std::size_t ops() const;  // ops recorded
  // Kernel dispatches recorded (Contiguize steps included); atomic backwards' adds count once
  // recorded, at the next barrier or at submit().
  std::size_t dispatches() const;
  std::size_t contiguize_steps() const;  // Contiguize steps recorded
  // Barriers recorded: before steps that depend on earlier ones, and the one before the waiting
  // atomic backwards' adds (a step that depends on waiting adds gets both).
  std::size_t barriers() const;
  double gpu_ns() const;  // after submit: GPU time from the first step to the last (0 without timestamps)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One planned op on views, submitted on its own (a batch of one). ctx.last_kernel_ns() gets its GPU time.
Tensor pad(Context& ctx, const TensorView& input, const PadSpec& spec, const Scalar& value = Scalar::from_int(0),
           PlanPolicy policy = PlanPolicy::DeterministicOnly);
Tensor pad_backward(Context& ctx, const TensorView& grad_out, const PadSpec& spec,
                    PlanPolicy policy = PlanPolicy::DeterministicOnly);
Tensor masked_fill(Context& ctx, const TensorView& input, const TensorView& mask, const Scalar& value,
                   PlanPolicy policy = PlanPolicy::DeterministicOnly);

}  // namespace fvk
