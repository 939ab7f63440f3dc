// A Vulkan buffer and the memory behind it, owned by value. Sizes are rounded up to 16 bytes so
// kernels that move whole 16-byte chunks never step outside the allocation. Device-local buffers
// of up to Suballocator::kMaxPooledBytes take a range of the device's shared blocks; the others
// an allocation of their own.
#pragma once

#include <cstddef>
#include <span>
#include <vulkan/vulkan_raii.hpp>

#include "runtime/suballocator.hpp"

namespace fvk::rt {

class Device;

enum class MemoryKind {
  Device,     // device-local storage for kernels
  Upload,     // host-visible, written by the host (staging for copies)
  Constants,  // small data the host writes and kernels read in place (shape_buf): device-local and
              // host-visible where the device has such memory (the BAR), else host-visible
  Readback,   // host-visible (cached where possible), read by the host
};

class Buffer {
 public:
  // `bytes` is the logical size; the allocation is rounded up to a multiple of 16 (at least 16).
  Buffer(const Device& device, vk::DeviceSize bytes, MemoryKind kind);
  Buffer(Buffer&&) noexcept = default;
  Buffer& operator=(Buffer&&) noexcept = default;

  vk::Buffer handle() const { return *buffer_; }
  // The device the buffer was made on (a buffer is only usable there).
  const Device& device() const { return *device_; }
  vk::DeviceSize size() const { return bytes_; }           // logical bytes
  vk::DeviceSize allocated() const { return allocated_; }  // bytes kernels may touch
  MemoryKind kind() const { return kind_; }
  // Whether the memory is a range of the device's shared blocks, and where in its block (0 for an
  // allocation of its own).
  bool pooled() const { return static_cast<bool>(lease_); }
  vk::DeviceSize memory_offset() const { return lease_ ? lease_.offset() : 0; }

  // Host access for Upload / Constants / Readback buffers.
  std::span<std::byte> host();

  static vk::DeviceSize rounded(vk::DeviceSize bytes) { return bytes < 16 ? 16 : (bytes + 15) / 16 * 16; }

 private:
  const Device* device_ = nullptr;
  vk::DeviceSize bytes_ = 0;
  vk::DeviceSize allocated_ = 0;
  MemoryKind kind_ = MemoryKind::Device;
  Suballocator::Lease lease_;  // before buffer_: the range goes back after the buffer is destroyed
  vk::raii::Buffer buffer_{nullptr};
  vk::raii::DeviceMemory memory_{nullptr};
  void* mapped_ = nullptr;
};

}  // namespace fvk::rt
