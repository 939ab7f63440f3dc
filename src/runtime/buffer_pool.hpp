// A pool of device-local scratch buffers (the planner's temporaries, e.g. Contiguize outputs).
// acquire() hands out a cached buffer that fits, else allocates; release() returns it. The pool
// does not track GPU use: a caller releases a buffer once no unfinished work will touch it, or
// orders later use with a barrier in the same command buffer (fvk::Batch does the latter).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/buffer.hpp"

namespace fvk::rt {

class Device;

class BufferPool {
 public:
  // Buffers beyond `max_cached_bytes` in total are freed on release rather than kept.
  explicit BufferPool(const Device& device, std::uint64_t max_cached_bytes = 256ull << 20);
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A device-local buffer of at least `bytes` bytes (the smallest cached one that fits and is at
  // most twice the need, else a new one). Contents undefined.
  std::shared_ptr<Buffer> acquire(std::uint64_t bytes);
  void release(std::shared_ptr<Buffer> buffer);
  // Frees the cached buffers (those handed out stay with their owners).
  void clear();

  std::uint64_t allocations() const { return allocations_; }  // buffers created so far
  std::uint64_t reuses() const { return reuses_; }            // acquires served from the cache
  std::size_t cached() const { return free_.size(); }

 private:
  const Device& device_;
  std::uint64_t max_cached_bytes_ = 0;
  std::uint64_t cached_bytes_ = 0;
  std::vector<std::shared_ptr<Buffer>> free_;
  std::uint64_t allocations_ = 0, reuses_ = 0;
};

}  // namespace fvk::rt
