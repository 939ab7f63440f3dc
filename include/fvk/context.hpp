// The entry point of the public API: a Vulkan device to run kernels on, and device tensors.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fvk/device_info.hpp"
#include "fvk/host_tensor.hpp"
#include "fvk/tensor.hpp"

namespace fvk {

namespace rt {
class Device;
}

// Whether pad.comp's and the deterministic backward's passes are built for one geometry (its dims,
// pads and element count as specialization constants, so the driver folds them into the code): one
// pipeline per geometry, built on its first dispatch.
enum class ShapeConstants {
  Auto,    // where that measured faster on the H200 (src/ops/shape_constant.cpp): destinations of
           // 1 MiB and more at once (at most kMaxShapePipelines pipelines per context), smaller ones
           // once their geometry is hot (ContextOptions::specialize_after)
  Never,   // every pass reads the geometry at run time: no pipeline per geometry
  Always,  // every pass of those kernels that can take them, at every size, without a cap: for
           // programs that repeat the same small shapes (the H200's small set took 0.85-0.94x the
           // time in two A/Bs) and for tests
};

struct ContextOptions {
  // Device index or name substring. Empty: env FVK_DEVICE, else a discrete GPU, else integrated,
  // else a CPU device (lavapipe).
  std::string device;
  // Khronos validation layer. Unset: on when env FVK_VALIDATION=1.
  std::optional<bool> validation;
  // Features to treat as absent even where the device has them (shaderInt64, shaderFloat64,
  // shaderBufferInt64Atomics, shaderBufferFloat32AtomicAdd), to exercise the refusal paths.
  // Also read from env FVK_DISABLE_FEATURES (comma-separated).
  std::vector<std::string> disabled_features;
  // Caps the workgroups per dispatch along x below the device's limit (0: the device's), so that
  // large dispatches spill into y as they do on devices with a 65535 limit. For tests.
  std::uint32_t max_workgroups_x = 0;
  // Runs the pad family's split paths (pad.comp's inner and edge passes, the deterministic
  // backward's copy, edge and multi-row passes) on every tensor whose shape the kernels allow them
  // for, however small, instead of only where they measured faster. For tests: it puts those paths
  // within reach of small, fast cases.
  bool always_split_passes = false;
  // Fills every tensor `empty` creates (op outputs included) with the bytes 0xA5 before handing it
  // out, so that an element a kernel fails to write shows as a wrong value. For tests.
  bool poison_new_tensors = false;
  // Compiles pipelines so that the driver can report their statistics (registers and the like;
  // `fvk stats`). Needs VK_KHR_pipeline_executable_properties: FeatureMissing on a device without
  // it. For profiling.
  bool capture_pipeline_statistics = false;
  // With the validation layer on, also its synchronization validation: a missing or misplaced
  // barrier between two commands that touch the same memory is reported, whatever order the
  // device happens to run them in. For tests. Also on with env FVK_VALIDATE_SYNC=1.
  bool validate_synchronization = false;
  // Turns the validation layer on with its GPU-assisted validation: every kernel is instrumented so
  // that a storage-buffer access past the end of its buffer is reported as a validation message
  // instead of going unseen. The layer checks against the buffer's size, so the buffer pool then
  // hands out buffers of exactly the size asked for (the tensor's bytes rounded up to 16), as
  // `empty` does. Kernels then take ordinary descriptor sets instead of push descriptors: the
  // layer Debian 12 ships (1.3.239) misreads push descriptors under GPU-assisted validation
  // (KhronosGroup/Vulkan-ValidationLayers#5321). Slow: lavapipe compiles the instrumented kernels
  // for minutes each unless env GALLIVM_PERF=no_opt. For tests. Also on with env FVK_CHECK_BOUNDS=1.
  bool check_bounds = false;
  // Builds every pipeline without the rank as a specialization constant (pad.comp's kernels and the
  // deterministic backward take it), so that their passes read it from their push constants as a
  // pipeline built without it does. For tests (both paths must give the same bytes), for an A/B of
  // the constant, and as a way around a driver that compiles the constant rank wrongly. Also on
  // with env FVK_RUNTIME_RANK=1.
  bool runtime_rank = false;
  // See ShapeConstants. Env FVK_SHAPE_CONSTANTS (auto, never or always) overrides it.
  ShapeConstants shape_constants = ShapeConstants::Auto;
  // Under ShapeConstants::Auto, a destination under 1 MiB keeps the pipelines that read its
  // geometry at run time until one pass of that geometry has been recorded this many times; then
  // the pass's pipeline built for the geometry is compiled on a background thread, and ops switch
  // to it once it is ready (the same bytes; on the H200 the small set's ops took 0.85-0.92x the
  // time, docs/data/h200_ab_hot_geometries.md). No op waits for that compile; at most
  // kMaxHotPipelines (512) are built so per context. 0: never. Env FVK_SPECIALIZE_AFTER overrides it.
  std::uint32_t specialize_after = 16;
};

// One Vulkan device and what runs on it. Not thread-safe: use a context from one thread at a time
// (or one context per thread). Tensors may be dropped on any thread (their memory goes back under a
// lock).
class Context {
 public:
  explicit Context(const ContextOptions& options = {});
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  ~Context();

  static std::vector<DeviceInfo> list_devices();
  const DeviceInfo& device_info() const;

  // Tensors keep the context's device alive: a Tensor may outlive the Context that made it (its
  // device memory, and the device with its pipelines, go when the last of them does; the
  // context's cache of temporaries goes with the context), but it is usable only with that
  // Context: the ops and download refuse a tensor of another one.
  Tensor upload(const HostTensor& host);
  HostTensor download(const Tensor& tensor);
  Tensor empty(DType dtype, Shape shape);

  // InvalidArgument naming `what` unless `tensor` is defined, was made by this context and its
  // shape fits its storage: what the ops check of every tensor they are given.
  void check_tensor(const Tensor& tensor, std::string_view what) const;

  // GPU time of the kernels of the last op run through this context (timestamp queries), in ns.
  double last_kernel_ns() const { return last_kernel_ns_; }
  void set_last_kernel_ns(double ns) { last_kernel_ns_ = ns; }

  // What the validation layer said so far (empty when it is off or had nothing to say).
  std::vector<std::string> validation_messages() const;

  // Kernel dispatches recorded through this context so far.
  std::uint64_t dispatch_count() const;

  // Blocks until the pipelines queued for background compiles so far (specialize_after) are
  // built, so that the ops recorded next use them: before a section that should run at its steady
  // speed from the first op.
  void finish_background_builds();

  rt::Device& runtime() { return device(); }

 private:
  // The device; InvalidArgument on a moved-from Context (which has none) instead of a null deref.
  rt::Device& device() const;
  std::shared_ptr<rt::Device> device_;  // shared with the tensors made here
  bool poison_new_tensors_ = false;
  double last_kernel_ns_ = 0;
};

}  // namespace fvk
