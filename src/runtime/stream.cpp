#include "runtime/stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "fvk/error.hpp"
#include "runtime/dispatch_grid.hpp"

namespace fvk::rt {
namespace {
constexpr vk::DeviceSize kArenaChunk = 64 * 1024;
// Descriptor sets per pool on a device without push descriptors, and the storage buffers each set
// may bind (no kernel has more than three; bind_descriptor_set checks).
constexpr std::uint32_t kSetsPerPool = 256;
constexpr std::uint32_t kMaxBindings = 4;

// Earlier compute and transfer writes made visible to later compute and transfer work, and with
// `host` to the host as well (its stage and host reads in the second scope).
void record_barrier(const vk::raii::CommandBuffer& cmd, bool host) {
  using S = vk::PipelineStageFlagBits;
  using A = vk::AccessFlagBits;
  const vk::PipelineStageFlags device_stages = S::eComputeShader | S::eTransfer;
  const vk::AccessFlags device_access = A::eShaderRead | A::eShaderWrite | A::eTransferRead | A::eTransferWrite;
  const vk::MemoryBarrier mb{.srcAccessMask = A::eShaderWrite | A::eTransferWrite,
                             .dstAccessMask = host ? device_access | A::eHostRead : device_access};
  cmd.pipelineBarrier(device_stages, host ? device_stages | S::eHost : device_stages, {}, mb, {}, {});
}
}  // namespace

Stream::Stream(Device& device, std::uint32_t max_timestamps)
    : device_(device),
      command_buffers_(device.device(), vk::CommandBufferAllocateInfo{.commandPool = *device.command_pool(),
                                                                      .level = vk::CommandBufferLevel::ePrimary,
                                                                      .commandBufferCount = 1}),
      max_timestamps_(device.info().timestamps ? max_timestamps : 0) {
  if (max_timestamps_ > 0) {
    queries_ = vk::raii::QueryPool(device.device(), vk::QueryPoolCreateInfo{.queryType = vk::QueryType::eTimestamp,
                                                                            .queryCount = max_timestamps_});
  }
  cmd().begin(vk::CommandBufferBeginInfo{.flags = vk::CommandBufferUsageFlagBits::eOneTimeSubmit});
  if (max_timestamps_ > 0) cmd().resetQueryPool(*queries_, 0, max_timestamps_);
}

Stream::~Stream() = default;

BufferRange Stream::upload_small(std::span<const std::byte> bytes) {
  const vk::DeviceSize align = std::max<vk::DeviceSize>(16, device_.info().min_storage_buffer_offset_alignment);
  const vk::DeviceSize size = Buffer::rounded(bytes.size());
  arena_used_ = (arena_used_ + align - 1) / align * align;
  if (arena_.empty() || arena_used_ + size > arena_.back().allocated()) {
    arena_.emplace_back(device_, std::max(kArenaChunk, size), MemoryKind::Constants);
    arena_used_ = 0;
  }
  auto host = arena_.back().host();
  std::memcpy(host.data() + arena_used_, bytes.data(), bytes.size());
  BufferRange r{arena_.back().handle(), arena_used_, size};
  arena_used_ += size;
  return r;
}

void Stream::dispatch(const Kernel& kernel, std::span<const BufferRange> bindings, std::span<const std::byte> push,
                      std::uint64_t invocations) {
  if (submitted_) fail(ErrorCode::Internal, "dispatch on a submitted stream");
  if (bindings.size() != kernel.interface.storage_buffer_bindings.size())
    fail(ErrorCode::Internal, fmt::format("kernel {} has {} bindings, {} given", kernel.name,
                                          kernel.interface.storage_buffer_bindings.size(), bindings.size()));
  if (push.size() != kernel.interface.push_constant_bytes)
    fail(ErrorCode::Internal, fmt::format("kernel {} takes {} push-constant bytes, {} given", kernel.name,
                                          kernel.interface.push_constant_bytes, push.size()));
  if (invocations == 0) return;
  // Checked before anything is recorded.
  const DispatchGrid grid = dispatch_grid(invocations, kernel.interface.local_size_x,
                                          device_.info().max_workgroup_count_x, device_.info().max_workgroup_count_y);
  std::vector<vk::DescriptorBufferInfo> infos;
  for (const auto& b : bindings) infos.push_back({.buffer = b.buffer, .offset = b.offset, .range = b.size});
  std::vector<vk::WriteDescriptorSet> writes;
  for (std::uint32_t i = 0; i < infos.size(); ++i)
    writes.push_back({.dstBinding = kernel.interface.storage_buffer_bindings[i],
                      .descriptorCount = 1,
                      .descriptorType = vk::DescriptorType::eStorageBuffer,
                      .pBufferInfo = &infos[i]});
  cmd().bindPipeline(vk::PipelineBindPoint::eCompute, *kernel.pipeline);
  if (device_.push_descriptors())
    cmd().pushDescriptorSetKHR(vk::PipelineBindPoint::eCompute, *kernel.layout, 0, writes);
  else
    bind_descriptor_set(kernel, writes);
  if (!push.empty()) cmd().pushConstants<std::byte>(*kernel.layout, vk::ShaderStageFlagBits::eCompute, 0, push);
  cmd().dispatch(grid.x, grid.y, 1);
  ++dispatches_;
  device_.note_dispatch();
}

void Stream::bind_descriptor_set(const Kernel& kernel, std::span<vk::WriteDescriptorSet> writes) {
  if (writes.size() > kMaxBindings)
    fail(ErrorCode::Internal, fmt::format("kernel {} has {} bindings; streams bind at most {} through descriptor sets",
                                          kernel.name, writes.size(), kMaxBindings));
  if (sets_left_ == 0) {
    const vk::DescriptorPoolSize size{.type = vk::DescriptorType::eStorageBuffer,
                                      .descriptorCount = kSetsPerPool * kMaxBindings};
    set_pools_.emplace_back(
        device_.device(),
        vk::DescriptorPoolCreateInfo{.flags = {}, .maxSets = kSetsPerPool, .poolSizeCount = 1, .pPoolSizes = &size});
    sets_left_ = kSetsPerPool;
  }
  const vk::DescriptorSetLayout layout = *kernel.set_layout;
  const vk::DescriptorSetAllocateInfo info{
      .descriptorPool = *set_pools_.back(), .descriptorSetCount = 1, .pSetLayouts = &layout};
  // Freed with their pool: the raw handle is enough.
  const vk::DescriptorSet set = (*device_.device()).allocateDescriptorSets(info).front();
  --sets_left_;
  for (auto& w : writes) w.dstSet = set;
  device_.device().updateDescriptorSets(writes, {});
  cmd().bindDescriptorSets(vk::PipelineBindPoint::eCompute, *kernel.layout, 0, set, {});
}

void Stream::fill(const Buffer& buffer, std::uint32_t value) { fill(whole(buffer), value); }

void Stream::fill(const BufferRange& range, std::uint32_t value) {
  cmd().fillBuffer(range.buffer, range.offset, range.size, value);
}

void Stream::copy(const Buffer& src, const Buffer& dst, vk::DeviceSize bytes) {
  if (bytes == 0) return;
  cmd().copyBuffer(src.handle(), dst.handle(), vk::BufferCopy{.srcOffset = 0, .dstOffset = 0, .size = bytes});
}

void Stream::copy_region(const Buffer& src, const Buffer& dst, const vk::BufferCopy& region) {
  if (region.size == 0) return;
  if (region.srcOffset + region.size > src.allocated() || region.dstOffset + region.size > dst.allocated())
    fail(ErrorCode::Internal, "copy_region outside its buffers");
  cmd().copyBuffer(src.handle(), dst.handle(), region);
}

void Stream::barrier() { record_barrier(cmd(), false); }

void Stream::host_barrier() { record_barrier(cmd(), true); }

std::uint32_t Stream::timestamp() {
  if (max_timestamps_ == 0) fail(ErrorCode::FeatureMissing, "the device's compute queue has no timestamp support");
  if (next_timestamp_ >= max_timestamps_) fail(ErrorCode::Internal, "stream ran out of timestamp queries");
  cmd().writeTimestamp(vk::PipelineStageFlagBits::eBottomOfPipe, *queries_, next_timestamp_);
  return next_timestamp_++;
}

void Stream::submit_and_wait() {
  if (submitted_) fail(ErrorCode::Internal, "stream submitted twice");
  submitted_ = true;
  cmd().end();
  vk::raii::Fence fence(device_.device(), vk::FenceCreateInfo{});
  const vk::CommandBuffer raw = *cmd();
  device_.queue().submit(vk::SubmitInfo{.commandBufferCount = 1, .pCommandBuffers = &raw}, *fence);
  device_.note_submit();
  while (device_.device().waitForFences({*fence}, VK_TRUE, 1'000'000'000ull) == vk::Result::eTimeout) {
  }
  if (next_timestamp_ > 0) {
    auto [result, values] = queries_.getResults<std::uint64_t>(
        0, next_timestamp_, next_timestamp_ * sizeof(std::uint64_t), sizeof(std::uint64_t),
        vk::QueryResultFlagBits::e64 | vk::QueryResultFlagBits::eWait);
    if (result != vk::Result::eSuccess) fail(ErrorCode::VulkanError, "timestamp query results unavailable");
    timestamp_values_ = std::move(values);
  }
}

double Stream::elapsed_ns(std::uint32_t from, std::uint32_t to) const {
  if (to >= timestamp_values_.size() || from >= timestamp_values_.size())
    fail(ErrorCode::Internal, "timestamp read before submit_and_wait");
  return static_cast<double>(timestamp_values_[to] - timestamp_values_[from]) * device_.info().timestamp_period_ns;
}

}  // namespace fvk::rt
