#include "runtime/device.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "fvk/error.hpp"
#include "runtime/device_features.hpp"
#include "runtime/embedded.hpp"

namespace fvk::rt {
namespace {

// A selector of digits as a device index; an index no device can have where it exceeds 64 bits.
std::optional<std::size_t> selector_index(const std::string& digits) {
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::string type_name(vk::PhysicalDeviceType t) {
  switch (t) {
    case vk::PhysicalDeviceType::eDiscreteGpu: return "discrete";
    case vk::PhysicalDeviceType::eIntegratedGpu: return "integrated";
    case vk::PhysicalDeviceType::eVirtualGpu: return "virtual";
    case vk::PhysicalDeviceType::eCpu: return "cpu";
    default: return "other";
  }
}

int type_rank(vk::PhysicalDeviceType t) {  // lower is preferred
  switch (t) {
    case vk::PhysicalDeviceType::eDiscreteGpu: return 0;
    case vk::PhysicalDeviceType::eIntegratedGpu: return 1;
    case vk::PhysicalDeviceType::eVirtualGpu: return 2;
    case vk::PhysicalDeviceType::eCpu: return 3;
    default: return 4;
  }
}

bool has_extension(const vk::raii::PhysicalDevice& pd, const char* ext) {
  for (const auto& e : pd.enumerateDeviceExtensionProperties())
    if (std::strcmp(e.extensionName, ext) == 0) return true;
  return false;
}

DeviceInfo describe(const vk::raii::PhysicalDevice& pd, std::uint32_t index) {
  DeviceInfo d;
  const auto props = pd.getProperties();
  d.index = index;
  d.name = props.deviceName.data();
  d.type = type_name(props.deviceType);
  d.api_version = fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(props.apiVersion),
                              VK_API_VERSION_MINOR(props.apiVersion), VK_API_VERSION_PATCH(props.apiVersion));
  d.driver_version = props.driverVersion;
  d.vendor_id = props.vendorID;
  d.device_id = props.deviceID;
  d.max_storage_buffer_range = props.limits.maxStorageBufferRange;
  d.max_workgroup_count_x = props.limits.maxComputeWorkGroupCount[0];
  d.max_workgroup_count_y = props.limits.maxComputeWorkGroupCount[1];
  d.min_storage_buffer_offset_alignment = props.limits.minStorageBufferOffsetAlignment;
  d.timestamp_period_ns = props.limits.timestampPeriod;

  auto chain = pd.getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceMaintenance3Properties,
                                 vk::PhysicalDeviceSubgroupProperties, vk::PhysicalDeviceDriverProperties>();
  d.max_memory_allocation_size = chain.get<vk::PhysicalDeviceMaintenance3Properties>().maxMemoryAllocationSize;
  const auto& sg = chain.get<vk::PhysicalDeviceSubgroupProperties>();
  d.subgroup_size = sg.subgroupSize;
  const bool sg_compute = static_cast<bool>(sg.supportedStages & vk::ShaderStageFlagBits::eCompute);
  d.subgroup_ballot = sg_compute && static_cast<bool>(sg.supportedOperations & vk::SubgroupFeatureFlagBits::eBallot);
  d.subgroup_shuffle = sg_compute && static_cast<bool>(sg.supportedOperations & vk::SubgroupFeatureFlagBits::eShuffle);
  const auto& drv = chain.get<vk::PhysicalDeviceDriverProperties>();
  d.driver = fmt::format("{} {}", drv.driverName.data(), drv.driverInfo.data());
  if (drv.driverID == vk::DriverId::eMesaLlvmpipe) d.max_loop_iterations = 65535;

  const auto mem = pd.getMemoryProperties();
  for (std::uint32_t h = 0; h < mem.memoryHeapCount; ++h)
    if (mem.memoryHeaps[h].flags & vk::MemoryHeapFlagBits::eDeviceLocal)
      d.device_local_heap_bytes = std::max<std::uint64_t>(d.device_local_heap_bytes, mem.memoryHeaps[h].size);

  for (const auto& qf : pd.getQueueFamilyProperties())
    if ((qf.queueFlags & vk::QueueFlagBits::eCompute) && qf.timestampValidBits > 0) d.timestamps = true;

  const auto f = pd.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceVulkan12Features>();
  const auto& core = f.get<vk::PhysicalDeviceFeatures2>().features;
  d.shader_int64 = core.shaderInt64;
  d.shader_float64 = core.shaderFloat64;
  d.shader_int16 = core.shaderInt16;
  d.buffer_int64_atomics = f.get<vk::PhysicalDeviceVulkan12Features>().shaderBufferInt64Atomics;
  d.push_descriptor = has_extension(pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (has_extension(pd, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    const auto af = pd.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>();
    const auto& atomic_float = af.get<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>();
    d.buffer_float32_atomic_add = atomic_float.shaderBufferFloat32AtomicAdd;
    d.buffer_float64_atomic_add = atomic_float.shaderBufferFloat64AtomicAdd;
  }
  if (has_extension(pd, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    const auto pf =
        pd.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>();
    d.pipeline_statistics = pf.get<vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>().pipelineExecutableInfo;
  }
  return d;
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "0") != 0 && *v != '\0';
}

// ContextOptions::shape_constants, or env FVK_SHAPE_CONSTANTS where set.
ShapeConstants shape_constants_setting(ShapeConstants option) {
  const char* v = std::getenv("FVK_SHAPE_CONSTANTS");
  if (v == nullptr || *v == '\0') return option;
  const std::string_view s(v);
  for (const auto setting : {ShapeConstants::Auto, ShapeConstants::Never, ShapeConstants::Always})
    if (s == shape_constants_name(setting)) return setting;
  fail(ErrorCode::InvalidArgument,
       fmt::format("env FVK_SHAPE_CONSTANTS is '{}'; it takes auto, never or always (or unset it)", s));
}

// ContextOptions::specialize_after, or env FVK_SPECIALIZE_AFTER where set.
std::uint32_t specialize_after_setting(std::uint32_t option) {
  const char* v = std::getenv("FVK_SPECIALIZE_AFTER");
  if (v == nullptr || *v == '\0') return option;
  const std::string_view s(v);
  std::uint32_t n = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (error != std::errc{} || end != s.data() + s.size())
    fail(ErrorCode::InvalidArgument,
         fmt::format("env FVK_SPECIALIZE_AFTER is '{}'; it takes a count of uses, 0 (never) to 4294967295, "
                     "in decimal digits (or unset it)",
                     s));
  return n;
}

vk::raii::Instance make_instance(const vk::raii::Context& context, bool validation, bool synchronization = false,
                                 bool gpu_assisted = false) {
  vk::ApplicationInfo app{.pApplicationName = "fuel-vulkan-kernels",
                          .applicationVersion = 1,
                          .pEngineName = "fvk",
                          .engineVersion = 1,
                          .apiVersion = VK_API_VERSION_1_2};
  std::vector<const char*> layers, extensions;
  if (validation) {
    bool found = false;
    for (const auto& l : context.enumerateInstanceLayerProperties())
      if (std::strcmp(l.layerName, kValidationLayer) == 0) found = true;
    if (!found)
      fail(ErrorCode::FeatureMissing,
           "validation was requested (FVK_VALIDATION=1) but VK_LAYER_KHRONOS_validation is not installed "
           "(Debian: apt-get install vulkan-validationlayers)");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  // The layer's synchronization and GPU-assisted validation, through VK_EXT_validation_features
  // (which the layer provides).
  std::vector<vk::ValidationFeatureEnableEXT> enables;
  if (synchronization) enables.push_back(vk::ValidationFeatureEnableEXT::eSynchronizationValidation);
  if (gpu_assisted) enables.push_back(vk::ValidationFeatureEnableEXT::eGpuAssisted);
  const vk::ValidationFeaturesEXT features{.enabledValidationFeatureCount = static_cast<std::uint32_t>(enables.size()),
                                           .pEnabledValidationFeatures = enables.data()};
  const bool with_features = validation && !enables.empty();
  if (with_features) extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  vk::InstanceCreateInfo info{.pNext = with_features ? &features : nullptr,
                              .pApplicationInfo = &app,
                              .enabledLayerCount = static_cast<std::uint32_t>(layers.size()),
                              .ppEnabledLayerNames = layers.data(),
                              .enabledExtensionCount = static_cast<std::uint32_t>(extensions.size()),
                              .ppEnabledExtensionNames = extensions.data()};
  return vk::raii::Instance(context, info);
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* sink = static_cast<ValidationSink*>(user);
  std::lock_guard lock(sink->mutex);
  sink->messages.emplace_back(data && data->pMessage ? data->pMessage : "(no message)");
  return VK_FALSE;
}

// Treats the named features as absent: they are neither enabled on the device nor offered to wrappers.
void disable_features(DeviceInfo& info, std::vector<std::string> names) {
  if (const char* env = std::getenv("FVK_DISABLE_FEATURES")) {
    std::string list = env;
    for (std::size_t start = 0; start < list.size();) {
      const auto end = std::min(list.find(',', start), list.size());
      if (end > start) names.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  for (const auto& n : names) {
    const FeatureFlag* f = find_feature(n);
    if (!f) {
      std::vector<std::string_view> known;
      for (const auto& k : kFeatureFlags) known.push_back(k.name);
      fail(ErrorCode::InvalidArgument,
           fmt::format("disabled feature '{}' is not one of {}", n, fmt::join(known, ", ")));
    }
    info.*(f->flag) = false;
  }
}

}  // namespace

std::vector<DeviceInfo> Device::enumerate() {
  vk::raii::Context context;
  vk::raii::Instance instance = make_instance(context, false);
  std::vector<DeviceInfo> out;
  std::uint32_t i = 0;
  for (const auto& pd : instance.enumeratePhysicalDevices()) out.push_back(describe(pd, i++));
  return out;
}

Device::Device(const DeviceOptions& options)
    : always_split_passes_(options.always_split_passes),
      runtime_rank_(options.runtime_rank || env_flag("FVK_RUNTIME_RANK")),
      capture_statistics_(options.capture_pipeline_statistics),
      shape_constants_(shape_constants_setting(options.shape_constants)),
      specialize_after_(specialize_after_setting(options.specialize_after)) {
  check_bounds_ = options.check_bounds || env_flag("FVK_CHECK_BOUNDS");
  validation_ = check_bounds_ || options.validation.value_or(env_flag("FVK_VALIDATION"));
  try {
    instance_ = make_instance(context_, validation_, options.validate_synchronization || env_flag("FVK_VALIDATE_SYNC"),
                              check_bounds_);
  } catch (const vk::SystemError& e) {
    fail(ErrorCode::DeviceNotFound, fmt::format("cannot create a Vulkan instance ({}); is a Vulkan driver installed "
                                                "(Debian: mesa-vulkan-drivers)?",
                                                e.what()));
  }
  if (validation_) {
    vk::DebugUtilsMessengerCreateInfoEXT info{.messageSeverity = vk::DebugUtilsMessageSeverityFlagBitsEXT::eWarning |
                                                                 vk::DebugUtilsMessageSeverityFlagBitsEXT::eError,
                                              .messageType = vk::DebugUtilsMessageTypeFlagBitsEXT::eGeneral |
                                                             vk::DebugUtilsMessageTypeFlagBitsEXT::eValidation |
                                                             vk::DebugUtilsMessageTypeFlagBitsEXT::ePerformance,
                                              .pfnUserCallback = &on_validation_message,
                                              .pUserData = sink_.get()};
    messenger_ = vk::raii::DebugUtilsMessengerEXT(instance_, info);
  }

  auto physicals = instance_.enumeratePhysicalDevices();
  if (physicals.empty())
    fail(ErrorCode::DeviceNotFound, "no Vulkan device found (Debian: mesa-vulkan-drivers gives lavapipe)");
  std::string selector = options.selector;
  if (selector.empty()) {
    if (const char* env = std::getenv("FVK_DEVICE")) selector = env;
  }
  std::optional<std::size_t> chosen;
  if (!selector.empty()) {
    const bool numeric = std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
    const auto index = numeric ? selector_index(selector) : std::nullopt;
    for (std::size_t i = 0; i < physicals.size() && !chosen; ++i) {
      const std::string dev_name = physicals[i].getProperties().deviceName.data();
      if (numeric ? index == i : dev_name.find(selector) != std::string::npos) chosen = i;
    }
    if (!chosen) {
      std::string names;
      for (std::size_t i = 0; i < physicals.size(); ++i)
        names += fmt::format("{}{}: {}", i ? ", " : "", i, physicals[i].getProperties().deviceName.data());
      fail(ErrorCode::DeviceNotFound,
           fmt::format("device selector '{}' (--device / FVK_DEVICE) matches no device; devices: {}", selector, names));
    }
  } else {
    chosen = 0;
    for (std::size_t i = 1; i < physicals.size(); ++i)
      if (type_rank(physicals[i].getProperties().deviceType) < type_rank(physicals[*chosen].getProperties().deviceType))
        chosen = i;
  }
  physical_ = std::move(physicals[*chosen]);
  info_ = describe(physical_, static_cast<std::uint32_t>(*chosen));
  disable_features(info_, options.disabled_features);
  if (options.max_workgroups_x > 0)
    info_.max_workgroup_count_x = std::min(info_.max_workgroup_count_x, options.max_workgroups_x);
  if (!info_.push_descriptor)
    fail(ErrorCode::FeatureMissing,
         fmt::format("device '{}' lacks VK_KHR_push_descriptor, which fvk needs", info_.name));

  const auto families = physical_.getQueueFamilyProperties();
  std::optional<std::uint32_t> family;
  for (std::uint32_t i = 0; i < families.size() && !family; ++i)
    if ((families[i].queueFlags & vk::QueueFlagBits::eCompute) && families[i].timestampValidBits > 0) family = i;
  for (std::uint32_t i = 0; i < families.size() && !family; ++i)
    if (families[i].queueFlags & vk::QueueFlagBits::eCompute) family = i;
  if (!family) fail(ErrorCode::DeviceNotFound, fmt::format("device '{}' has no compute queue", info_.name));
  queue_family_ = *family;

  // Enable what the kernels may use, where the device has it; wrappers check before dispatching.
  vk::StructureChain<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceVulkan12Features,
                     vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT,
                     vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>
      features;
  auto& core = features.get<vk::PhysicalDeviceFeatures2>().features;
  core.shaderInt64 = info_.shader_int64;
  core.shaderFloat64 = info_.shader_float64;
  core.shaderInt16 = info_.shader_int16;
  features.get<vk::PhysicalDeviceVulkan12Features>().shaderBufferInt64Atomics = info_.buffer_int64_atomics;
  std::vector<const char*> extensions{VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  if (info_.buffer_float32_atomic_add || info_.buffer_float64_atomic_add) {
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    auto& atomic_float = features.get<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>();
    atomic_float.shaderBufferFloat32AtomicAdd = info_.buffer_float32_atomic_add;
    atomic_float.shaderBufferFloat64AtomicAdd = info_.buffer_float64_atomic_add;
  } else {
    features.unlink<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT>();
  }
  if (capture_statistics_ && !info_.pipeline_statistics)
    fail(ErrorCode::FeatureMissing,
         fmt::format("capture_pipeline_statistics: device '{}' lacks VK_KHR_pipeline_executable_properties "
                     "(pipelineExecutableInfo), so its driver cannot report pipeline statistics",
                     info_.name));
  if (capture_statistics_) {
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    features.get<vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>().pipelineExecutableInfo = VK_TRUE;
  } else {
    features.unlink<vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR>();
  }
  const float priority = 1.0f;
  vk::DeviceQueueCreateInfo queue_info{
      .queueFamilyIndex = queue_family_, .queueCount = 1, .pQueuePriorities = &priority};
  vk::DeviceCreateInfo device_info{.pNext = &features.get<vk::PhysicalDeviceFeatures2>(),
                                   .queueCreateInfoCount = 1,
                                   .pQueueCreateInfos = &queue_info,
                                   .enabledExtensionCount = static_cast<std::uint32_t>(extensions.size()),
                                   .ppEnabledExtensionNames = extensions.data()};
  device_ = vk::raii::Device(physical_, device_info);
  queue_ = vk::raii::Queue(device_, queue_family_, 0);
  command_pool_ = vk::raii::CommandPool(
      device_, vk::CommandPoolCreateInfo{.flags = vk::CommandPoolCreateFlagBits::eResetCommandBuffer,
                                         .queueFamilyIndex = queue_family_});
  suballocator_ = std::make_unique<Suballocator>(device_, info_.max_memory_allocation_size);
  temp_pool_ = std::make_unique<BufferPool>(*this);
}

Device::~Device() = default;

std::string_view shape_constants_name(ShapeConstants setting) {
  switch (setting) {
    case ShapeConstants::Auto: return "auto";
    case ShapeConstants::Never: return "never";
    case ShapeConstants::Always: return "always";
  }
  return "?";
}

namespace {

std::u32string constants_key(std::span<const SpecConstant> constants) {
  std::u32string key;
  for (const auto& c : constants) {
    key.push_back(c.id);
    key.push_back(c.value);
  }
  return key;
}

void check_constants(const std::string& name, std::span<const SpecConstant> constants) {
  for (std::size_t i = 0; i < constants.size(); ++i)
    if (constants[i].id == 1 || std::any_of(constants.begin(), constants.begin() + static_cast<std::ptrdiff_t>(i),
                                            [&](const SpecConstant& c) { return c.id == constants[i].id; }))
      fail(ErrorCode::Internal,
           fmt::format("kernel '{}': specialization constant {} given twice (1 is the rank)", name, constants[i].id));
}

// When kernel_when_hot holds this many entries, it forgets the counts of the pipelines not queued
// and starts them again (a program that runs many geometries once each would otherwise grow the
// map without end).
constexpr std::size_t kMaxHotCounts = 4096;

}  // namespace

const SpirvInterface* Device::built_interface(const std::string& name) const {
  const auto built = kernels_.lower_bound(KernelLookup{name, 0, 0, {}});
  return built != kernels_.end() && std::get<0>(built->first) == name ? &built->second->interface : nullptr;
}

Kernel* Device::find_built(const std::string& name, std::uint32_t pass, std::uint32_t& rank,
                           const std::u32string& key) const {
  if (runtime_rank_ && key.empty()) rank = 0;
  const auto it = kernels_.find(KernelLookup{name, pass, rank, key});
  return it != kernels_.end() ? it->second.get() : nullptr;
}

const Kernel& Device::kernel(const std::string& name, std::uint32_t pass, std::uint32_t rank,
                             std::span<const SpecConstant> constants) {
  std::lock_guard lock(kernels_mutex_);
  std::u32string key = constants_key(constants);
  if (const Kernel* k = find_built(name, pass, rank, key)) return *k;
  check_constants(name, constants);
  auto k = build(name, pass, rank, constants, built_interface(name));
  if (!constants.empty()) ++pipelines_with_constants_;
  return *kernels_.emplace(KernelKey{name, pass, rank, std::move(key)}, std::move(k)).first->second;
}

const Kernel* Device::kernel_when_hot(const std::string& name, std::uint32_t pass, std::uint32_t rank,
                                      std::span<const SpecConstant> constants, std::uint32_t hot_after,
                                      std::uint64_t max_builds) {
  std::lock_guard lock(kernels_mutex_);
  std::u32string key = constants_key(constants);
  if (const Kernel* k = find_built(name, pass, rank, key)) return k;
  if (hot_after == 0 || background_builds_ >= max_builds) return nullptr;
  auto hot = hot_.find(KernelLookup{name, pass, rank, key});
  if (hot == hot_.end()) {
    if (hot_.size() >= kMaxHotCounts) std::erase_if(hot_, [](const auto& h) { return !h.second.queued; });
    hot = hot_.emplace(KernelKey{name, pass, rank, key}, HotUses{}).first;
  }
  if (hot->second.queued || ++hot->second.uses < hot_after) return nullptr;
  check_constants(name, constants);
  hot->second.queued = true;  // queued or failed to queue: not tried again
  std::optional<SpirvInterface> known;
  if (const SpirvInterface* i = built_interface(name)) known = *i;
  try {
    builder_.post([this, key = hot->first, constants = std::vector<SpecConstant>(constants.begin(), constants.end()),
                   known = std::move(known)] {
      const auto& [name, pass, rank, _] = key;
      try {
        auto k = build(name, pass, rank, constants, known ? &*known : nullptr);
        std::lock_guard lock(kernels_mutex_);
        kernels_.emplace(key, std::move(k));
      } catch (const std::exception& e) {
        std::lock_guard lock(kernels_mutex_);
        background_failures_.push_back(fmt::format("kernel '{}' pass {}: {}", name, pass, e.what()));
      }
    });
  } catch (const std::exception& e) {  // no thread to build on: the caller's pipeline stays
    background_failures_.push_back(fmt::format("kernel '{}' pass {}: not queued: {}", name, pass, e.what()));
    return nullptr;
  }
  ++background_builds_;
  return nullptr;
}

void Device::finish_background_builds() { builder_.wait_idle(); }

std::vector<std::string> Device::background_build_failures() const {
  std::lock_guard lock(kernels_mutex_);
  return background_failures_;
}

std::unique_ptr<Kernel> Device::build(const std::string& name, std::uint32_t pass, std::uint32_t rank,
                                      std::span<const SpecConstant> constants, const SpirvInterface* known) const {
  const auto& table = embedded::table();
  const auto entry = std::find_if(table.begin(), table.end(), [&](const auto& k) { return k.name == name; });
  if (entry == table.end()) fail(ErrorCode::Internal, fmt::format("kernel '{}' is not in the EMBEDDED table", name));
  // One layout for all of the kernel's passes, whichever bindings a pass's module leaves out: read
  // from its modules once, then from any pipeline of the kernel already built. reflect_passes
  // refuses a kernel without modules.
  SpirvInterface iface = known ? *known : reflect_passes(entry->passes);
  if (pass >= entry->passes.size())
    fail(ErrorCode::Internal,
         fmt::format("kernel '{}' has passes 0 to {}, not {}", name, entry->passes.size() - 1, pass));
  const embedded::Spirv spirv = entry->passes[pass];
  iface.local_size_x = reflect_spirv(spirv).local_size_x;  // the pass's own workgroup size
  vk::raii::ShaderModule module(device_,
                                vk::ShaderModuleCreateInfo{.codeSize = spirv.size_bytes(), .pCode = spirv.data()});
  std::vector<vk::DescriptorSetLayoutBinding> bindings;
  for (auto b : iface.storage_buffer_bindings)
    bindings.push_back({.binding = b,
                        .descriptorType = vk::DescriptorType::eStorageBuffer,
                        .descriptorCount = 1,
                        .stageFlags = vk::ShaderStageFlagBits::eCompute});
  vk::raii::DescriptorSetLayout set_layout(
      device_, vk::DescriptorSetLayoutCreateInfo{
                   .flags = push_descriptors() ? vk::DescriptorSetLayoutCreateFlagBits::ePushDescriptorKHR
                                               : vk::DescriptorSetLayoutCreateFlags{},
                   .bindingCount = static_cast<std::uint32_t>(bindings.size()),
                   .pBindings = bindings.data()});
  vk::PushConstantRange range{
      .stageFlags = vk::ShaderStageFlagBits::eCompute, .offset = 0, .size = iface.push_constant_bytes};
  const vk::DescriptorSetLayout raw_set_layout = *set_layout;
  vk::raii::PipelineLayout layout(
      device_, vk::PipelineLayoutCreateInfo{.setLayoutCount = 1,
                                            .pSetLayouts = &raw_set_layout,
                                            .pushConstantRangeCount = iface.push_constant_bytes ? 1u : 0u,
                                            .pPushConstantRanges = &range});
  // Constant 1, the rank, where it is set (the pass is the module), then the others.
  std::vector<std::uint32_t> values{rank};
  std::vector<vk::SpecializationMapEntry> entries{{.constantID = 1, .offset = 0, .size = sizeof(std::uint32_t)}};
  for (const auto& c : constants) {
    entries.push_back({.constantID = c.id,
                       .offset = static_cast<std::uint32_t>(values.size() * sizeof(std::uint32_t)),
                       .size = sizeof(std::uint32_t)});
    values.push_back(c.value);
  }
  const vk::SpecializationInfo specialization{.mapEntryCount = static_cast<std::uint32_t>(entries.size()),
                                              .pMapEntries = entries.data(),
                                              .dataSize = values.size() * sizeof(std::uint32_t),
                                              .pData = values.data()};
  vk::ComputePipelineCreateInfo pipeline_info{
      .flags = capture_statistics_ ? vk::PipelineCreateFlagBits::eCaptureStatisticsKHR : vk::PipelineCreateFlags{},
      .stage = {.stage = vk::ShaderStageFlagBits::eCompute,
                .module = *module,
                .pName = "main",
                .pSpecializationInfo = rank == 0 && constants.empty() ? nullptr : &specialization},
      .layout = *layout};
  vk::raii::Pipeline pipeline(device_, nullptr, pipeline_info);
  return std::make_unique<Kernel>(Kernel{name,
                                         pass,
                                         rank,
                                         {constants.begin(), constants.end()},
                                         iface,
                                         std::move(module),
                                         std::move(set_layout),
                                         std::move(layout),
                                         std::move(pipeline)});
}

std::vector<std::string> Device::validation_messages() const {
  std::lock_guard lock(sink_->mutex);
  return sink_->messages;
}

std::vector<PipelineStatistic> Device::pipeline_statistics(const Kernel& kernel) const {
  if (!capture_statistics_)
    fail(ErrorCode::InvalidArgument,
         fmt::format("pipeline statistics of '{}': the device was opened without capture_pipeline_statistics "
                     "(ContextOptions), so its pipelines were compiled without them",
                     kernel.name));
  return read_pipeline_statistics(device_, *kernel.pipeline);
}

}  // namespace fvk::rt
