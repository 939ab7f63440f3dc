// The kernel variants the ops layer dispatches to, one entry per (kernel, accepted dtype): what the
// selftest, the tests, the Judge and the benchmark iterate over.
#pragma once

#include <string>
#include <vector>

#include "fvk/device_info.hpp"
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

// Every (kernel, dtype) pair we ship, in a stable order: the portable builds after all the others.
std::vector<Target> all_targets();

// Whether the target is a portable build (contracts/portable.fkc.md), which the public ops choose
// only on a device without a feature of the fast build.
bool is_portable(const Target& t);
// The device features some fast build needs and its portable build does without (the subgroup
// operations, the f64 atomic add), by their Vulkan names, each once: a device with all of them
// off runs every portable build.
std::vector<std::string> features_portable_builds_do_without();
// The kernel the public op of the target dispatches on this device.
std::string dispatched_kernel(const DeviceInfo& device, const Target& t);

}  // namespace fvk::ops
