#include "runtime/buffer_pool.hpp"

#include <algorithm>

#include "runtime/device.hpp"

namespace fvk::rt {

BufferPool::BufferPool(const Device& device, std::uint64_t max_cached_bytes)
    : device_(device), max_cached_bytes_(max_cached_bytes) {}

std::shared_ptr<Buffer> BufferPool::acquire(std::uint64_t bytes) {
  const auto need = Buffer::rounded(bytes);
  // Up to twice the size asked for, except on a check_bounds device (only the size asked for).
  const auto most = device_.check_bounds() ? need : 2 * need;
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if ((*it)->allocated() >= need && (*it)->allocated() <= most &&
        (best == free_.end() || (*it)->allocated() < (*best)->allocated()))
      best = it;
  if (best != free_.end()) {
    auto b = std::move(*best);
    free_.erase(best);
    cached_bytes_ -= b->allocated();
    ++reuses_;
    return b;
  }
  ++allocations_;
  return std::make_shared<Buffer>(device_, bytes, MemoryKind::Device);
}

void BufferPool::release(std::shared_ptr<Buffer> buffer) {
  if (!buffer || buffer->kind() != MemoryKind::Device) return;
  if (cached_bytes_ + buffer->allocated() > max_cached_bytes_) return;  // dropped: freed with the last owner
  cached_bytes_ += buffer->allocated();
  free_.push_back(std::move(buffer));
}

void BufferPool::clear() {
  free_.clear();
  cached_bytes_ = 0;
}

}  // namespace fvk::rt
