#include "runtime/buffer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fvk/error.hpp"
#include "runtime/device.hpp"

namespace fvk::rt {
namespace {

// The memory types that suit `kind`, best first.
std::vector<std::uint32_t> memory_types(const vk::PhysicalDeviceMemoryProperties& mem, std::uint32_t allowed,
                                        MemoryKind kind) {
  using F = vk::MemoryPropertyFlagBits;
  std::vector<vk::MemoryPropertyFlags> wishes;
  switch (kind) {
    case MemoryKind::Device: wishes = {F::eDeviceLocal, {}}; break;
    case MemoryKind::Upload: wishes = {F::eHostVisible | F::eHostCoherent}; break;
    case MemoryKind::Constants:
      wishes = {F::eDeviceLocal | F::eHostVisible | F::eHostCoherent, F::eHostVisible | F::eHostCoherent};
      break;
    case MemoryKind::Readback:
      wishes = {F::eHostVisible | F::eHostCoherent | F::eHostCached, F::eHostVisible | F::eHostCoherent};
      break;
  }
  std::vector<std::uint32_t> types;
  for (const auto& want : wishes)
    for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i)
      if ((allowed & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want &&
          std::find(types.begin(), types.end(), i) == types.end())
        types.push_back(i);
  if (types.empty()) fail(ErrorCode::DeviceLimit, "no Vulkan memory type fits this buffer");
  return types;
}

}  // namespace

Buffer::Buffer(const Device& device, vk::DeviceSize bytes, MemoryKind kind)
    : device_(&device), bytes_(bytes), allocated_(rounded(bytes)), kind_(kind) {
  const auto& info = device.info();
  if (allocated_ > info.max_memory_allocation_size)
    fail(ErrorCode::DeviceLimit, fmt::format("a buffer of {} bytes exceeds the device's maxMemoryAllocationSize ({})",
                                             allocated_, info.max_memory_allocation_size));
  using U = vk::BufferUsageFlagBits;
  buffer_ = vk::raii::Buffer(device.device(),
                             vk::BufferCreateInfo{.size = allocated_,
                                                  .usage = U::eStorageBuffer | U::eTransferSrc | U::eTransferDst,
                                                  .sharingMode = vk::SharingMode::eExclusive});
  const auto req = buffer_.getMemoryRequirements();
  // The best suitable type; for Constants, the next one when it has no room (device-local
  // host-visible memory can be a small heap). Other kinds do not fall back: a tensor that does not
  // fit in device memory is an error, not a silent move to host memory.
  std::string last_error;
  auto types = memory_types(device.physical().getMemoryProperties(), req.memoryTypeBits, kind);
  if (kind != MemoryKind::Constants) types.erase(types.begin() + 1, types.end());  // never empty
  if (kind == MemoryKind::Device) {
    lease_ = device.suballocator().allocate(types.front(), req.size, req.alignment);
    if (lease_) {
      buffer_.bindMemory(lease_.memory(), lease_.offset());
      return;
    }
  }
  for (const auto type : types) {
    try {
      memory_ = vk::raii::DeviceMemory(device.device(),
                                       vk::MemoryAllocateInfo{.allocationSize = req.size, .memoryTypeIndex = type});
      break;
    } catch (const vk::SystemError& e) {
      last_error = e.what();
    }
  }
  if (!*memory_)
    fail(ErrorCode::DeviceLimit, fmt::format("cannot allocate {} bytes of device memory: {}", req.size, last_error));
  buffer_.bindMemory(*memory_, 0);
  if (kind != MemoryKind::Device) mapped_ = memory_.mapMemory(0, VK_WHOLE_SIZE);
}

std::span<std::byte> Buffer::host() {
  if (!mapped_) fail(ErrorCode::Internal, "host() on a buffer that is not host-visible");
  return {static_cast<std::byte*>(mapped_), static_cast<std::size_t>(bytes_)};
}

}  // namespace fvk::rt
