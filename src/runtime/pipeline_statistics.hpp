// What the driver says about a compiled pipeline (VK_KHR_pipeline_executable_properties): per
// executable, statistics such as registers, spills, shared memory or instruction counts. Their
// names and meanings are the driver's own; fvk only passes them on. A profiling aid: the register
// count of a kernel's pass decides how many subgroups stay in flight to hide memory latency.
#pragma once

#include <string>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

namespace fvk::rt {

struct PipelineStatistic {
  std::string executable;   // the driver's name of the executable (e.g. a compute shader stage)
  std::string name;         // the statistic, as the driver names it
  std::string value;        // formatted: integers and floats as numbers, booleans as true / false
  std::string description;  // the driver's description
};

// Every statistic of every executable of `pipeline`, created with the capture-statistics flag on a
// device with pipelineExecutableInfo enabled.
std::vector<PipelineStatistic> read_pipeline_statistics(const vk::raii::Device& device, vk::Pipeline pipeline);

}  // namespace fvk::rt
