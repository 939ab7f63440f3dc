// Device-local memory in large blocks, handed out in aligned ranges to small buffers, so that every
// small tensor does not take a Vulkan allocation of its own (each one is a driver call, a device
// allows at most maxMemoryAllocationCount of them, and the driver places each anew). Buffers of
// more than kMaxPooledBytes keep their own allocation. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

namespace fvk::rt {

class Suballocator {
 public:
  static constexpr vk::DeviceSize kBlockBytes = vk::DeviceSize{64} << 20;
  static constexpr vk::DeviceSize kMaxPooledBytes = vk::DeviceSize{4} << 20;

 private:
  struct Block {
    vk::raii::DeviceMemory memory{nullptr};
    std::uint32_t type = 0;
    vk::DeviceSize used = 0;                        // bytes leased out
    std::map<vk::DeviceSize, vk::DeviceSize> free;  // offset -> length, disjoint, not touching
  };

 public:
  // A range of one block, returned to it on destruction (or reset). Empty when default-constructed
  // or moved from.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept { *this = std::move(other); }
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { reset(); }

    explicit operator bool() const { return block_ != nullptr; }
    vk::DeviceMemory memory() const { return *block_->memory; }
    vk::DeviceSize offset() const { return offset_; }
    void reset();

   private:
    friend class Suballocator;
    Suballocator* owner_ = nullptr;
    Block* block_ = nullptr;
    vk::DeviceSize offset_ = 0, size_ = 0;
  };

  // `max_allocation`: the device's maxMemoryAllocationSize (a block is at most that).
  Suballocator(const vk::raii::Device& device, vk::DeviceSize max_allocation);
  Suballocator(const Suballocator&) = delete;
  Suballocator& operator=(const Suballocator&) = delete;

  // `bytes` of memory type `type` at an offset that is a multiple of `alignment` (a power of two),
  // from a block with room, else from a new block. Empty where `bytes` is over kMaxPooledBytes or a
  // new block cannot be allocated (the caller then allocates on its own, and reports a failure).
  Lease allocate(std::uint32_t type, vk::DeviceSize bytes, vk::DeviceSize alignment);

  std::size_t blocks() const;         // blocks held now
  std::uint64_t leases_made() const;  // ranges handed out so far

 private:
  void give_back(Block* block, vk::DeviceSize offset, vk::DeviceSize size);

  const vk::raii::Device& device_;
  vk::DeviceSize block_bytes_ = kBlockBytes;  // every block's size
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::uint64_t leases_made_ = 0;
};

}  // namespace fvk::rt
