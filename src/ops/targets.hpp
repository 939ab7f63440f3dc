// The kernel variants the ops layer dispatches to, one entry per (kernel, accepted dtype): what the
// selftest, the tests, the Judge and the benchmark iterate over.
#pragma once

#include <string>
#include <vector>

#include "fvk/dtype.hpp"
#include "fvk/ops.hpp"
#include "fvk/pad_spec.hpp"

namespace fvk::ops {

enum class Op { Pad, PadBackward, MaskedFill, Copy, Contiguize };

// One kernel variant and one dtype it accepts.
struct Target {
  std::string kernel;
  Op op = Op::Pad;
  PadMode mode = PadMode::Constant;
  BackwardAlgorithm algorithm = BackwardAlgorithm::Deterministic;
  DType dtype = DType::F32;
  bool exact = true;  // bit-exact promise (false: atomic accumulation, checked within a bound)
};

// Every (kernel, dtype) pair we ship, in a stable order.
std::vector<Target> all_targets();

}  // namespace fvk::ops
