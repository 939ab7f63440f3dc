// A stream records work into one command buffer and submits it once: dispatches (with push
// descriptors), fills, copies, barriers and timestamps. Small uploads (shape_buf) come from a
// host-visible arena that lives as long as the stream. Temporaries handed to keep_alive() too.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "runtime/buffer.hpp"
#include "runtime/device.hpp"

namespace fvk::rt {

struct BufferRange {
  vk::Buffer buffer;
  vk::DeviceSize offset = 0;
  vk::DeviceSize size = VK_WHOLE_SIZE;
};

inline BufferRange whole(const Buffer& b) { return {b.handle(), 0, b.allocated()}; }
// The first `bytes` of a buffer, rounded up to whole 16-byte chunks as kernels move them: the
// binding of a tensor that may sit at the start of a larger buffer (a view of a bigger storage), so
// the range is what the op checked against maxStorageBufferRange, not the whole allocation.
inline BufferRange prefix(const Buffer& b, vk::DeviceSize bytes) {
  return {b.handle(), 0, std::min(b.allocated(), Buffer::rounded(bytes))};
}

class Stream {
 public:
  explicit Stream(Device& device, std::uint32_t max_timestamps = 64);
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  Device& device() { return device_; }

  // Copies `bytes` into the stream's upload arena; the range stays valid until the stream dies.
  BufferRange upload_small(std::span<const std::byte> bytes);

  // Binds `bindings` to 0..n-1, pushes `push` and dispatches enough workgroups of the kernel's size
  // (its SPIR-V's local_size_x) for `invocations` (x up to the device limit, the rest in y); the
  // kernel bounds-checks.
  void dispatch(const Kernel& kernel, std::span<const BufferRange> bindings, std::span<const std::byte> push,
                std::uint64_t invocations);
  void fill(const Buffer& buffer, std::uint32_t value);      // the whole allocation
  void fill(const BufferRange& range, std::uint32_t value);  // a range, its size a multiple of 4
  void copy(const Buffer& src, const Buffer& dst, vk::DeviceSize bytes);
  void copy_region(const Buffer& src, const Buffer& dst, const vk::BufferCopy& region);
  // Makes every earlier compute and transfer write visible to every later compute and transfer read
  // or write: what dependent work on the device needs (between two ops, between an op's passes).
  void barrier();
  // barrier(), and the writes visible to the host as well: before the host reads a mapped buffer.
  void host_barrier();
  // Writes a timestamp after all earlier work; returns its index.
  std::uint32_t timestamp();

  void keep_alive(std::shared_ptr<const void> object) { keep_alive_.push_back(std::move(object)); }

  // Ends recording, submits, waits. A stream is submitted once.
  void submit_and_wait();
  // Nanoseconds between two timestamps (after submit_and_wait).
  double elapsed_ns(std::uint32_t from, std::uint32_t to) const;

  std::size_t dispatch_count() const { return dispatches_; }

 private:
  Device& device_;
  vk::raii::CommandBuffers command_buffers_;
  vk::raii::QueryPool queries_{nullptr};
  std::uint32_t max_timestamps_ = 0;
  std::uint32_t next_timestamp_ = 0;
  std::vector<std::uint64_t> timestamp_values_;
  std::vector<Buffer> arena_;
  vk::DeviceSize arena_used_ = 0;
  std::vector<std::shared_ptr<const void>> keep_alive_;
  // Descriptor sets for a device without push descriptors (Device::push_descriptors), a pool
  // after another as they fill up; they live as long as the command buffer that binds them.
  std::vector<vk::raii::DescriptorPool> set_pools_;
  std::uint32_t sets_left_ = 0;
  std::size_t dispatches_ = 0;
  bool submitted_ = false;

  const vk::raii::CommandBuffer& cmd() const { return command_buffers_.front(); }
  // Binds `writes` (dstSet unset) as set 0 of `kernel` through a descriptor set of the stream's.
  void bind_descriptor_set(const Kernel& kernel, std::span<vk::WriteDescriptorSet> writes);
};

}  // namespace fvk::rt
