#include "runtime/pipeline_statistics.hpp"

#include <fmt/format.h>

namespace fvk::rt {

namespace {

std::string format_value(const vk::PipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case vk::PipelineExecutableStatisticFormatKHR::eBool32: return s.value.b32 ? "true" : "false";
    case vk::PipelineExecutableStatisticFormatKHR::eInt64: return fmt::format("{}", s.value.i64);
    case vk::PipelineExecutableStatisticFormatKHR::eUint64: return fmt::format("{}", s.value.u64);
    case vk::PipelineExecutableStatisticFormatKHR::eFloat64: return fmt::format("{:g}", s.value.f64);
  }
  return "?";
}

}  // namespace

std::vector<PipelineStatistic> read_pipeline_statistics(const vk::raii::Device& device, vk::Pipeline pipeline) {
  std::vector<PipelineStatistic> out;
  const auto executables = device.getPipelineExecutablePropertiesKHR(vk::PipelineInfoKHR{.pipeline = pipeline});
  for (std::uint32_t i = 0; i < executables.size(); ++i) {
    const auto stats = device.getPipelineExecutableStatisticsKHR(
        vk::PipelineExecutableInfoKHR{.pipeline = pipeline, .executableIndex = i});
    for (const auto& s : stats)
      out.push_back({executables[i].name.data(), s.name.data(), format_value(s), s.description.data()});
  }
  return out;
}

}  // namespace fvk::rt
