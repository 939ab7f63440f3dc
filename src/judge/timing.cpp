#include "judge/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "fvk/error.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::judge {

void warm_up(rt::Device& device, const rt::Buffer& src, const rt::Buffer& dst, double seconds) {
  const std::uint64_t bytes = std::min(src.allocated(), dst.allocated());
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    rt::Stream s(device, 0);
    for (int i = 0; i < 20; ++i) {
      s.fill(dst, static_cast<std::uint32_t>(i));
      s.barrier();
      ops::record_copy(s, dst, src, bytes);
      s.barrier();
    }
    s.submit_and_wait();
  }
}

std::uint32_t hot_warm_up_runs(const rt::Device& device) {
  return std::clamp<std::uint32_t>(device.specialize_after(), 1, 64);
}

Timing time_gpu(rt::Device& device, const std::function<void(rt::Stream&)>& record, int warmup, int reps) {
  if (reps < 1) fail(ErrorCode::InvalidArgument, fmt::format("reps is {}; timing needs at least 1 repetition", reps));
  if (!device.info().timestamps) fail(ErrorCode::FeatureMissing, "the device has no compute timestamps to time with");
  // Warm-up by time, not by count: after the host has kept the device idle (allocating, filling
  // buffers), its clocks drop, and a few runs of a short op would be timed before they are back up
  // (on the H200 such rows measured 2-7x slow, at random). Batches of the op itself double until
  // about 30 ms of wall time have gone by, after at least `warmup` runs.
  // At least as many runs as make a geometry hot, so that the builds below are queued even when
  // the first batch's compile eats the 30 ms.
  const int runs = std::max(warmup, static_cast<int>(hot_warm_up_runs(device)));
  const auto warm_up_op = [&] {
    const auto start = std::chrono::steady_clock::now();
    int batch = runs;
    for (;;) {
      rt::Stream warm(device, 0);
      for (int i = 0; i < batch; ++i) {
        record(warm);
        warm.barrier();
      }
      warm.submit_and_wait();
      if (std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(30)) break;
      batch = std::min(batch * 2, 4096);
    }
  };
  // The op's steady state: where the warm-up made a geometry hot (ContextOptions::specialize_after),
  // the pipelines built for it in the background are waited for (with any queued before), and the
  // device warmed up again with them (the wait idles it), as in a program that repeats the op.
  const std::uint64_t queued = device.background_builds();
  warm_up_op();
  device.finish_background_builds();
  if (device.background_builds() != queued) warm_up_op();
  rt::Stream s(device, static_cast<std::uint32_t>(reps + 1));
  std::vector<std::uint32_t> marks{s.timestamp()};
  for (int i = 0; i < reps; ++i) {
    record(s);
    s.barrier();
    marks.push_back(s.timestamp());
  }
  s.submit_and_wait();
  std::vector<double> ns;
  for (int i = 0; i < reps; ++i) ns.push_back(s.elapsed_ns(marks[i], marks[i + 1]));
  std::sort(ns.begin(), ns.end());
  return Timing{ns[ns.size() / 2], ns.front(), reps};
}

}  // namespace fvk::judge
