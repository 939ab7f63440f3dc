// The one error type of the public boundary: a code tests can assert on, and a message that names
// the argument and the rule it broke.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace fvk {

enum class ErrorCode {
  RankOutOfRange,      // rank 0 or above the kernel's maximum
  ShapeMismatch,       // shapes that must agree do not (out = in + l + r, mask = input, ...)
  NegativePad,         // a pad below zero
  ReflectPadTooLarge,  // reflect with a pad > in_dim - 1
  EmptyDimension,      // a 0-sized dim where the mode needs data
  DTypeNotAccepted,    // dtype outside the kernel's accepted set
  IndexOverflow,       // element count or byte size beyond 32-bit indexing
  DeviceLimit,         // beyond maxStorageBufferRange, allocation size or memory
  FeatureMissing,      // the device lacks a feature the kernel needs
  ValueOutOfRange,     // a fill value not representable in the dtype
  InvalidArgument,     // any other malformed argument
  UnsupportedLayout,   // a layout the kernel or file reader does not take
  InvalidFile,         // a file that cannot be read as what it claims to be
  DeviceNotFound,      // no Vulkan device matches the selection
  VulkanError,         // a Vulkan call failed
  ContractError,       // a contract document broke a schema rule
  NoKernel,            // the planner found no kernel for a request
  Internal,            // a bug of ours
};

std::string_view to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }
  // The message alone; what() is "<code>: <message>".
  std::string_view message() const noexcept;

 private:
  ErrorCode code_;
};

// Throws Error(code, message) — for one-line checks: `require(x > 0, ErrorCode::..., "...")`.
[[noreturn]] void fail(ErrorCode code, const std::string& message);

}  // namespace fvk
