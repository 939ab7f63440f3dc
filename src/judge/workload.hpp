// A kernel ready to be timed: its buffers allocated and filled with random bits on the device, and
// a function that records one run of the op (zero-fill included where the op needs it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "fkc/formula.hpp"
#include "ops/targets.hpp"
#include "runtime/buffer.hpp"
#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace fvk::judge {

struct Workload {
  ops::Target target;
  Shape in_shape;   // pad: the input; backward: grad_in; masked_fill: the input
  Shape out_shape;  // pad: the output; backward: grad_out; masked_fill: the output
  std::uint64_t n_in = 0, n_out = 0;
  std::vector<std::shared_ptr<rt::Buffer>> buffers;
  std::function<void(rt::Stream&)> record;
};

// Pads are per axis. Buffers come from `pool` when it holds large enough ones (reused across
// workloads of one size class), else are allocated and added to it.
class BufferPool {
 public:
  explicit BufferPool(rt::Device& device) : device_(device) {}
  rt::Device& device() { return device_; }
  // A device buffer of at least `bytes`, filled with random bits once; `slot` separates roles.
  std::shared_ptr<rt::Buffer> random(int slot, std::uint64_t bytes);
  // A device buffer of at least `bytes` (contents undefined).
  std::shared_ptr<rt::Buffer> scratch(int slot, std::uint64_t bytes);

 private:
  rt::Device& device_;
  std::vector<std::pair<int, std::shared_ptr<rt::Buffer>>> random_, scratch_;
};

Workload make_workload(BufferPool& pool, const ops::Target& target, const Shape& in_shape,
                       const std::vector<std::int64_t>& left, const std::vector<std::int64_t>& right);

// The symbols contract formulas are written in, for this workload.
fkc::SymbolValues formula_symbols(const Workload& w);

}  // namespace fvk::judge
