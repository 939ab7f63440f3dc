// The fuzz build's stand-in for src/runtime/device.cpp, which clang 14 does not compile (see
// CMakeLists.txt). No target opens a device; the CLI helpers and the ops linked in with them only
// name these functions. Each throws Error(Internal), which a target reports as a finding.
#include "fvk/error.hpp"
#include "runtime/device.hpp"

namespace fvk::rt {
namespace {

[[noreturn]] void no_device() { fail(ErrorCode::Internal, "the fuzz build has no device (fuzz/no_device.cpp)"); }

}  // namespace

Device::Device(const DeviceOptions&) { no_device(); }
Device::~Device() = default;
std::vector<DeviceInfo> Device::enumerate() { no_device(); }
const Kernel& Device::kernel(const std::string&, std::uint32_t, std::uint32_t, std::span<const SpecConstant>) {
  no_device();
}
const Kernel* Device::kernel_when_hot(const std::string&, std::uint32_t, std::uint32_t, std::span<const SpecConstant>,
                                      std::uint32_t, std::uint64_t) {
  no_device();
}
void Device::finish_background_builds() { no_device(); }
std::vector<std::string> Device::validation_messages() const { no_device(); }
std::string_view shape_constants_name(ShapeConstants) { no_device(); }

}  // namespace fvk::rt
