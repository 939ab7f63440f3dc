// The Vulkan device we run on: instance (with the Khronos validation layer when asked), physical
// device selection, logical device, one compute queue, and the pipelines created from the EMBEDDED
// table. Knows nothing about padding.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "fvk/context.hpp"
#include "fvk/device_info.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/pipeline_statistics.hpp"
#include "runtime/spirv_reflect.hpp"
#include "runtime/suballocator.hpp"
#include "runtime/worker_thread.hpp"

namespace fvk::rt {

// A specialization constant other than the rank (constant 1): its constant_id and value.
struct SpecConstant {
  std::uint32_t id = 0;
  std::uint32_t value = 0;
};

// A compute pipeline built from one pass's SPIR-V module of an EMBEDDED kernel; its layout comes
// from the SPIR-V itself (the union of the bindings of all the kernel's passes).
struct Kernel {
  std::string name;
  std::uint32_t pass = 0;               // the module of the kernel's pass (0 for a kernel without passes)
  std::uint32_t rank = 0;               // specialization constant 1 (0: the shader reads the rank at run time)
  std::vector<SpecConstant> constants;  // the other specialization constants set (most pipelines: none)
  SpirvInterface interface;
  vk::raii::ShaderModule module;
  vk::raii::DescriptorSetLayout set_layout;
  vk::raii::PipelineLayout layout;
  vk::raii::Pipeline pipeline;
};

// Where the debug messenger puts what the validation layer says.
struct ValidationSink {
  std::mutex mutex;
  std::vector<std::string> messages;
};

// The setting's word, as env FVK_SHAPE_CONSTANTS takes it: auto, never or always.
std::string_view shape_constants_name(ShapeConstants setting);

struct DeviceOptions {
  std::string selector;                        // index or name substring; empty: env FVK_DEVICE, then default
  std::optional<bool> validation;              // default: env FVK_VALIDATION=1
  std::vector<std::string> disabled_features;  // plus env FVK_DISABLE_FEATURES
  std::uint32_t max_workgroups_x = 0;          // 0: the device's limit
  bool always_split_passes = false;            // see ContextOptions
  bool capture_pipeline_statistics = false;    // see ContextOptions
  bool validate_synchronization = false;       // see ContextOptions
  bool check_bounds = false;                   // see ContextOptions
  bool runtime_rank = false;                   // see ContextOptions
  ShapeConstants shape_constants = ShapeConstants::Auto;  // see ContextOptions
  std::uint32_t specialize_after = 16;                    // see ContextOptions
};

class Device {
 public:
  explicit Device(const DeviceOptions& options = {});
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device();

  static std::vector<DeviceInfo> enumerate();

  const DeviceInfo& info() const { return info_; }
  const vk::raii::Device& device() const { return device_; }
  const vk::raii::PhysicalDevice& physical() const { return physical_; }
  const vk::raii::Queue& queue() const { return queue_; }
  const vk::raii::CommandPool& command_pool() const { return command_pool_; }
  std::uint32_t queue_family() const { return queue_family_; }

  // The pipeline for an EMBEDDED kernel's pass, created on first use and cached. Each pass is its
  // own SPIR-V module (kernels/CMakeLists.txt), which the driver compiles alone, lean in registers;
  // a kernel without passes has pass 0 only. Throws Error(Internal) for a pass the kernel lacks.
  // A nonzero `rank` is given as specialization constant 1 (constant_id = 1), the tensor rank
  // pad.comp's kernels otherwise read from their push constants: their loops over the axes then unroll
  // to the axes there are, and shape_buf's offsets become constants. A shader without that constant
  // ignores it (Vulkan leaves map entries of undeclared constants without effect). A device opened
  // with runtime_rank ignores `rank`.
  // `constants` sets further specialization constants (ids other than 1, each once; pad.comp's
  // geometry, src/ops/shape_constant.cpp): one pipeline per distinct set, so the caller decides
  // where that pays. With constants, `rank` is kept on a runtime_rank device too (the shader may
  // need it with them).
  const Kernel& kernel(const std::string& name, std::uint32_t pass = 0, std::uint32_t rank = 0,
                       std::span<const SpecConstant> constants = {});

  // The pipeline kernel(name, pass, rank, constants) would return, once it is built; nullptr until
  // then. Each call counts a use of it, and the `hot_after`th (0: never) queues its build on the
  // device's background thread, so no caller waits for that compile: the caller runs a pipeline
  // of its own meanwhile. No build is queued once `max_builds` have been. A build that fails is
  // not retried (background_build_failures says why).
  const Kernel* kernel_when_hot(const std::string& name, std::uint32_t pass, std::uint32_t rank,
                                std::span<const SpecConstant> constants, std::uint32_t hot_after,
                                std::uint64_t max_builds);
  // Blocks until the background builds queued so far are done.
  void finish_background_builds();
  // Builds queued by kernel_when_hot so far (none of them count in pipelines_with_constants), and
  // what the failed ones threw.
  std::uint64_t background_builds() const { return background_builds_; }
  std::vector<std::string> background_build_failures() const;
  // After how many uses a geometry's pipeline is built in the background (ContextOptions).
  std::uint32_t specialize_after() const { return specialize_after_; }

  // Messages the validation layer reported (warnings and errors) since the device was created.
  std::vector<std::string> validation_messages() const;
  bool validation_enabled() const { return validation_; }
  // Whether kernels are bound through push descriptors (all but a check_bounds device) or through
  // descriptor sets the stream allocates (Kernel::set_layout is then an ordinary set layout).
  bool push_descriptors() const { return !check_bounds_; }
  // Whether the device was opened with check_bounds (ContextOptions): buffers are then never
  // handed out larger than asked for, so the layer's check against a buffer's size is tight.
  bool check_bounds() const { return check_bounds_; }

  // Dispatches recorded on this device so far (tests use it to prove a refusal dispatched nothing).
  std::uint64_t dispatch_count() const { return dispatch_count_; }
  void note_dispatch() { ++dispatch_count_; }
  // Queue submissions made through streams on this device so far.
  std::uint64_t submit_count() const { return submit_count_; }
  void note_submit() { ++submit_count_; }

  // What the driver reports about a kernel's compiled pipeline; needs the device opened with
  // capture_pipeline_statistics (DeviceOptions), else InvalidArgument.
  std::vector<PipelineStatistic> pipeline_statistics(const Kernel& kernel) const;

  // Where pipelines are built for one geometry (ContextOptions, or env FVK_SHAPE_CONSTANTS), and how
  // many kernel() built with specialization constants besides the rank.
  ShapeConstants shape_constants() const { return shape_constants_; }
  std::size_t pipelines_with_constants() const { return pipelines_with_constants_; }

  // Whether the pad family splits into passes whenever the shape allows (ContextOptions).
  bool always_split_passes() const { return always_split_passes_; }

  // Scratch buffers reused across ops and batches (the planner's temporaries).
  BufferPool& temp_pool() { return *temp_pool_; }
  // Device-local memory in blocks, shared by small buffers (Buffer takes its memory there).
  Suballocator& suballocator() const { return *suballocator_; }

 private:
  using KernelKey = std::tuple<std::string, std::uint32_t, std::uint32_t, std::u32string>;
  // A KernelKey looked up without building its strings.
  using KernelLookup = std::tuple<std::string_view, std::uint32_t, std::uint32_t, std::u32string_view>;
  // Compiles a pipeline; `known` is the kernel's layout where a pipeline of it was built before.
  // Touches no member a lock guards, so it runs on either thread.
  std::unique_ptr<Kernel> build(const std::string& name, std::uint32_t pass, std::uint32_t rank,
                                std::span<const SpecConstant> constants, const SpirvInterface* known) const;
  // The pipeline built for (name, pass, rank, constants as `key`), if any; a runtime_rank device
  // sets `rank` to 0 where there are no constants. kernels_mutex_ held.
  Kernel* find_built(const std::string& name, std::uint32_t pass, std::uint32_t& rank, const std::u32string& key) const;
  // The layout of a pipeline of `name` already built, if any; kernels_mutex_ held.
  const SpirvInterface* built_interface(const std::string& name) const;

  bool validation_ = false;
  bool check_bounds_ = false;
  bool always_split_passes_ = false;
  bool runtime_rank_ = false;        // kernel() leaves specialization constant 1 unset
  bool capture_statistics_ = false;  // pipelines created with eCaptureStatisticsKHR
  ShapeConstants shape_constants_ = ShapeConstants::Auto;
  std::uint32_t specialize_after_ = 16;
  std::atomic<std::size_t> pipelines_with_constants_{0};
  std::unique_ptr<ValidationSink> sink_ = std::make_unique<ValidationSink>();  // outlives the messenger
  vk::raii::Context context_;
  vk::raii::Instance instance_{nullptr};
  vk::raii::DebugUtilsMessengerEXT messenger_{nullptr};
  vk::raii::PhysicalDevice physical_{nullptr};
  DeviceInfo info_;
  std::uint32_t queue_family_ = 0;
  vk::raii::Device device_{nullptr};
  vk::raii::Queue queue_{nullptr};
  vk::raii::CommandPool command_pool_{nullptr};
  std::unique_ptr<Suballocator> suballocator_;  // after the device, before every buffer
  std::unique_ptr<BufferPool> temp_pool_;       // its buffers go before the device
  // Keyed by (name, pass, rank, the other constants as id, value, id, ...); looked up with string
  // views, so a dispatch without other constants builds no string.
  std::map<KernelKey, std::unique_ptr<Kernel>, std::less<>> kernels_;
  // kernel_when_hot's uses per pipeline not built yet, and whether its build is queued.
  struct HotUses {
    std::uint32_t uses = 0;
    bool queued = false;
  };
  std::map<KernelKey, HotUses, std::less<>> hot_;
  std::vector<std::string> background_failures_;
  mutable std::mutex kernels_mutex_;  // kernels_, hot_, background_failures_
  std::atomic<std::uint64_t> background_builds_{0};
  std::atomic<std::uint64_t> dispatch_count_{0};
  std::atomic<std::uint64_t> submit_count_{0};
  WorkerThread builder_;  // last: joined before anything its jobs touch goes
};

}  // namespace fvk::rt
