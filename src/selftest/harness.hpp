// One harness that runs a kernel on the device and holds it against the CPU reference. The CLI's
// `fvk selftest` and the GoogleTest suite both drive it, over the same generated cases.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fvk/context.hpp"
#include "fvk/ops.hpp"
#include "fvk/pad_spec.hpp"
#include "fvk/scalar.hpp"
#include "ops/targets.hpp"

namespace fvk::selftest {

using ops::all_targets;
using ops::Op;
using ops::Target;

struct Case {
  Shape shape;  // pad: the input; backward: grad_in (grad_out = shape + l + r); masked_fill: input
  std::vector<std::int64_t> left, right;
  Scalar fill = Scalar::from_int(0);
  std::uint64_t seed = 0;
};

struct Outcome {
  bool pass = true;
  std::string detail;       // first mismatch, when any
  double gpu_ns = 0;        // kernel time, timestamp queries
  std::uint64_t bytes = 0;  // bytes the op must move (input read once, output written once)
  double max_error = 0;     // atomic kernels: largest |gpu - exact| / bound seen
};

// The spread of shapes for a target: ranks 1..8, size-1 and odd dims, pads 0 / 1 / the largest
// allowed, empty tensors where the mode allows them. `bandwidth_case` adds one larger case.
std::vector<Case> cases_for(const Target& target, bool bandwidth_case);

// Runs the case through the public op, which must dispatch the target's kernel on this context
// (Internal error otherwise): a portable build's target needs a context from context_options.
Outcome run_case(Context& ctx, const Target& target, const Case& c);

// Options for a context whose public ops dispatch the target's kernel: `base` itself, or for a
// portable build `base` with every feature that fast builds need and their portable builds do
// without turned off (ops::features_portable_builds_do_without).
ContextOptions context_options(const Target& target, ContextOptions base = {});

// The device features the target's contract requires and the device lacks (empty: it can run).
std::vector<std::string> missing_features(Context& ctx, const Target& target);

// Element i of an F64 / F32 / F16 / BF16 tensor, widened exactly.
double element_as_double(const HostTensor& t, std::size_t i);

// The first element where two tensors of one dtype differ byte for byte, with both bit patterns (or
// their shapes, where those differ); nullopt where they are equal.
std::optional<std::string> first_difference(const HostTensor& got, const HostTensor& want);

}  // namespace fvk::selftest
