// GPU timing with timestamp queries: warm-up runs (at least `warmup`, and about 30 ms of them), then
// `reps` runs each between two timestamps (a barrier after each, so runs do not overlap), and the
// median.
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

// Keeps the device busy copying src to dst for about `seconds` of wall time, so clocks have ramped
// up before anything is timed (on the H200 the first shape set timed on a cold GPU ran up to 2x
// slower). The buffers are the caller's, kept for later: allocating and freeing scratch memory here
// moved where later buffers landed, and timings with it.
void warm_up(rt::Device& device, const rt::Buffer& src, const rt::Buffer& dst, double seconds);

// How many times to record an op before timing it so that its geometry turns hot
// (ContextOptions::specialize_after; at least 1, at most 64, so that a large setting does not make
// a warm-up endless).
std::uint32_t hot_warm_up_runs(const rt::Device& device);

// The op `record` records, timed with timestamps over `reps` runs in one command buffer (median and
// fastest), after a warm-up of at least `warmup` runs and 30 ms, in its steady state: the pipelines
// it made hot in the warm-up (ContextOptions::specialize_after) built.
Timing time_gpu(rt::Device& device, const std::function<void(rt::Stream&)>& record, int warmup = 3, int reps = 15);

}  // namespace fvk::judge
