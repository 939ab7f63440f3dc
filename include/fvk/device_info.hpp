// What we know about a Vulkan device: identity, the limits our kernels depend on, and features.
#pragma once

#include <cstdint>
#include <string>

namespace fvk {

struct DeviceInfo {
  std::uint32_t index = 0;
  std::string name;
  std::string type;  // discrete, integrated, virtual, cpu, other
  std::string api_version;
  std::string driver;  // driver name and info, where the driver reports them
  std::uint32_t driver_version = 0;
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;

  std::uint64_t max_storage_buffer_range = 0;
  std::uint64_t max_memory_allocation_size = 0;
  std::uint64_t device_local_heap_bytes = 0;
  std::uint32_t max_workgroup_count_x = 0;
  std::uint32_t max_workgroup_count_y = 0;
  std::uint32_t subgroup_size = 0;
  std::uint64_t min_storage_buffer_offset_alignment = 0;
  double timestamp_period_ns = 0;
  // Loop iterations one shader invocation may run, all loops together; 0: no limit known. Mesa's
  // llvmpipe (lavapipe) ends every loop of an invocation after 65535 iterations in total, silently.
  std::uint32_t max_loop_iterations = 0;
  bool timestamps = false;

  bool push_descriptor = false;
  bool shader_int64 = false;
  bool shader_float64 = false;
  bool shader_int16 = false;
  bool buffer_int64_atomics = false;
  bool buffer_float32_atomic_add = false;
  bool buffer_float64_atomic_add = false;  // shaderBufferFloat64AtomicAdd (VK_EXT_shader_atomic_float)
  // Subgroup ballot and shuffle operations in compute shaders (VkPhysicalDeviceSubgroupProperties).
  bool subgroup_ballot = false;
  bool subgroup_shuffle = false;
  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the driver can report
  // statistics of compiled pipelines (registers and the like), which `fvk stats` prints.
  bool pipeline_statistics = false;
};

}  // namespace fvk
