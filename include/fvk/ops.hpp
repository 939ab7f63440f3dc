// The ops: pad forward, pad backward, masked_fill. Each validates every precondition before anything
// is dispatched and throws fvk::Error naming the argument and the rule.
#pragma once

#include <span>

#include "fvk/context.hpp"
#include "fvk/pad_spec.hpp"
#include "fvk/scalar.hpp"
#include "fvk/tensor.hpp"

namespace fvk {

// Pads `input`; pads in torch.nn.functional.pad order via PadSpec::from_torch, or per axis.
Tensor pad(Context& ctx, const Tensor& input, const PadSpec& spec, const Scalar& value = Scalar::from_int(0));
// Same, into an existing output whose shape must be in + l + r per axis and whose storage is not
// input's. The kernels store whole 16-byte chunks: out's storage bytes from out.nbytes() up to the next
// multiple of 16 may be overwritten too (no Tensor can address them: a Tensor starts at its storage's
// first byte).
void pad_into(Context& ctx, const Tensor& input, const Tensor& out, const PadSpec& spec,
              const Scalar& value = Scalar::from_int(0));

enum class BackwardAlgorithm {
  Deterministic,  // gather: fixed summation order, bit-identical run to run (the default)
  Atomic,         // scatter with atomic adds: order depends on the scheduler
};

// grad_in from grad_out (the padded shape). Constant mode is a gather for either algorithm.
Tensor pad_backward(Context& ctx, const Tensor& grad_out, const PadSpec& spec,
                    BackwardAlgorithm algorithm = BackwardAlgorithm::Deterministic);

// out[i] = mask[i] ? value : input[i]; mask is bool with input's shape.
Tensor masked_fill(Context& ctx, const Tensor& input, const Tensor& mask, const Scalar& value);

}  // namespace fvk
