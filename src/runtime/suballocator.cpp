#include "runtime/suballocator.hpp"

#include <algorithm>
#include <iterator>

namespace fvk::rt {

Suballocator::Lease& Suballocator::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    reset();
    owner_ = std::exchange(other.owner_, nullptr);
    block_ = std::exchange(other.block_, nullptr);
    offset_ = other.offset_;
    size_ = other.size_;
  }
  return *this;
}

void Suballocator::Lease::reset() {
  if (block_ != nullptr) owner_->give_back(block_, offset_, size_);
  owner_ = nullptr;
  block_ = nullptr;
}

Suballocator::Suballocator(const vk::raii::Device& device, vk::DeviceSize max_allocation)
    : device_(device), block_bytes_(std::min(kBlockBytes, max_allocation)) {}

Suballocator::Lease Suballocator::allocate(std::uint32_t type, vk::DeviceSize bytes, vk::DeviceSize alignment) {
  Lease lease;
  if (bytes == 0 || bytes > kMaxPooledBytes || bytes > block_bytes_) return lease;
  alignment = std::max<vk::DeviceSize>(alignment, 1);
  std::lock_guard lock(mutex_);
  // First fit: the first free range, in the blocks' order, that holds `bytes` from an aligned start.
  auto take = [&](Block& b) {
    for (auto it = b.free.begin(); it != b.free.end(); ++it) {
      const auto [start, length] = *it;
      const vk::DeviceSize at = (start + alignment - 1) / alignment * alignment;
      if (at + bytes > start + length) continue;
      b.free.erase(it);
      if (at > start) b.free.emplace(start, at - start);
      if (at + bytes < start + length) b.free.emplace(at + bytes, start + length - at - bytes);
      b.used += bytes;
      lease.owner_ = this;
      lease.block_ = &b;
      lease.offset_ = at;
      lease.size_ = bytes;
      ++leases_made_;
      return true;
    }
    return false;
  };
  for (const auto& b : blocks_)
    if (b->type == type && block_bytes_ - b->used >= bytes && take(*b)) return lease;
  auto block = std::make_unique<Block>();
  try {
    block->memory = vk::raii::DeviceMemory(
        device_, vk::MemoryAllocateInfo{.allocationSize = block_bytes_, .memoryTypeIndex = type});
  } catch (const vk::SystemError&) {
    return lease;  // no room for a block: the caller allocates the buffer on its own
  }
  block->type = type;
  block->free.emplace(0, block_bytes_);
  blocks_.push_back(std::move(block));
  take(*blocks_.back());
  return lease;
}

void Suballocator::give_back(Block* block, vk::DeviceSize offset, vk::DeviceSize size) {
  std::lock_guard lock(mutex_);
  block->used -= size;
  // Merge with the free ranges that touch it.
  auto next = block->free.lower_bound(offset);
  vk::DeviceSize start = offset, end = offset + size;
  if (next != block->free.begin()) {
    const auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      block->free.erase(prev);
    }
  }
  if (next != block->free.end() && next->first == end) {
    end += next->second;
    block->free.erase(next);
  }
  block->free.emplace(start, end - start);
  // An empty block is kept for the next small buffers of its type, unless another empty one is.
  if (block->used == 0) {
    const auto empty_of_type = std::count_if(blocks_.begin(), blocks_.end(),
                                             [&](const auto& b) { return b->type == block->type && b->used == 0; });
    if (empty_of_type > 1)
      blocks_.erase(std::find_if(blocks_.begin(), blocks_.end(), [&](const auto& b) { return b.get() == block; }));
  }
}

std::size_t Suballocator::blocks() const {
  std::lock_guard lock(mutex_);
  return blocks_.size();
}

std::uint64_t Suballocator::leases_made() const {
  std::lock_guard lock(mutex_);
  return leases_made_;
}

}  // namespace fvk::rt
