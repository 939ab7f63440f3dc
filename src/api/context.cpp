#include "fvk/context.hpp"

#include <fmt/format.h>

#include <cstring>

#include "fvk/error.hpp"
#include "runtime/buffer.hpp"
#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace fvk {

Context::Context(const ContextOptions& options)
    : device_(std::make_shared<rt::Device>(rt::DeviceOptions{
          options.device, options.validation, options.disabled_features, options.max_workgroups_x,
          options.always_split_passes, options.capture_pipeline_statistics, options.validate_synchronization,
          options.check_bounds, options.runtime_rank, options.shape_constants, options.specialize_after})),
      poison_new_tensors_(options.poison_new_tensors) {}
Context::Context(Context&&) noexcept = default;
// The device stays while tensors of it do; its cache of temporaries (up to 256 MiB) need not: it goes
// when its context does, whether destroyed or assigned over.
Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    if (device_ && device_ != other.device_) device_->temp_pool().clear();
    device_ = std::move(other.device_);
    poison_new_tensors_ = other.poison_new_tensors_;
    last_kernel_ns_ = other.last_kernel_ns_;
  }
  return *this;
}
Context::~Context() {
  if (device_) device_->temp_pool().clear();
}

std::vector<DeviceInfo> Context::list_devices() { return rt::Device::enumerate(); }
rt::Device& Context::device() const {
  if (!device_)
    fail(ErrorCode::InvalidArgument, "this Context was moved from: it has no device; use the Context it was moved to");
  return *device_;
}

const DeviceInfo& Context::device_info() const { return device().info(); }
std::vector<std::string> Context::validation_messages() const { return device().validation_messages(); }
std::uint64_t Context::dispatch_count() const { return device().dispatch_count(); }
void Context::finish_background_builds() { device().finish_background_builds(); }

Tensor Context::empty(DType dtype, Shape shape) {
  const auto bytes = static_cast<std::size_t>(check_dense_shape(shape, byte_width(dtype), "tensor"));
  // The buffer's owner holds the device too, so that the device outlives every tensor of it.
  std::shared_ptr<rt::Buffer> buffer(new rt::Buffer(device(), bytes, rt::MemoryKind::Device),
                                     [device = device_](rt::Buffer* b) { delete b; });
  if (poison_new_tensors_ && bytes > 0) {
    rt::Stream stream(device());
    stream.fill(*buffer, 0xA5A5A5A5u);
    stream.submit_and_wait();
  }
  return Tensor(std::move(buffer), dtype, std::move(shape));
}

Tensor Context::upload(const HostTensor& host) {
  const auto want = check_dense_shape(host.shape, host.elem_bytes(), "host tensor");
  if (host.data.size() != want)
    fail(ErrorCode::InvalidArgument, fmt::format("host tensor holds {} bytes but shape {} of {} needs {}",
                                                 host.data.size(), to_string(host.shape), name(host.dtype), want));
  Tensor t = empty(host.dtype, host.shape);
  rt::Buffer staging(device(), host.data.size(), rt::MemoryKind::Upload);
  if (!host.data.empty()) std::memcpy(staging.host().data(), host.data.data(), host.data.size());
  rt::Stream stream(device());
  // The whole allocation is defined: the tail past the data (up to 16 bytes) is zeroed first.
  stream.fill(*t.storage(), 0);
  stream.barrier();
  stream.copy(staging, *t.storage(), host.data.size());
  stream.barrier();
  stream.submit_and_wait();
  return t;
}

void Context::check_tensor(const Tensor& tensor, std::string_view what) const {
  if (!tensor.defined())
    fail(ErrorCode::InvalidArgument, fmt::format("{} tensor is empty (default-constructed)", what));
  if (&tensor.storage()->device() != &device())
    fail(ErrorCode::InvalidArgument,
         fmt::format("{} tensor was made by another fvk::Context (each has its own device memory): download it "
                     "from that one and upload it to this one",
                     what));
  // Tensor's public constructor takes any storage: its shape must fit what the buffer holds.
  if (const auto bytes = dense_bytes(tensor.shape(), byte_width(tensor.dtype()));
      !bytes || *bytes > tensor.storage()->size())
    fail(ErrorCode::InvalidArgument,
         fmt::format("{} tensor: {} of shape {} needs {} bytes, but its storage holds {}", what, name(tensor.dtype()),
                     to_string(tensor.shape()), bytes ? fmt::format("{}", *bytes) : "more than 2^63-1",
                     tensor.storage()->size()));
}

HostTensor Context::download(const Tensor& tensor) {
  check_tensor(tensor, "downloaded");
  HostTensor host = HostTensor::zeros(tensor.dtype(), tensor.shape());
  if (host.data.empty()) return host;
  rt::Buffer staging(device(), host.data.size(), rt::MemoryKind::Readback);
  rt::Stream stream(device());
  stream.copy(*tensor.storage(), staging, host.data.size());
  stream.host_barrier();
  stream.submit_and_wait();
  std::memcpy(host.data.data(), staging.host().data(), host.data.size());
  return host;
}

}  // namespace fvk
