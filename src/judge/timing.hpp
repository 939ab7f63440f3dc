// GPU timing with timestamp queries: warm-up runs, then `reps` runs each between two timestamps
// (a barrier after each, so runs do not overlap), and the median.
#pragma once

#include <cstdint>
#include <functional>

#include "runtime/buffer.hpp"
#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace fvk::judge {

struct Timing {
  double median_ns = 0;
  double min_ns = 0;
  int reps = 0;
};

Timing time_gpu(rt::Device& device, const std::function<void(rt::Stream&)>& record, int warmup = 3, int reps = 15);

// Records the roofline copy (copy_b4) of `bytes` bytes from `src` to `dst` (rounded down to 16).
void record_copy(rt::Stream& stream, const rt::Buffer& src, const rt::Buffer& dst, std::uint64_t bytes);

}  // namespace fvk::judge
