#include "fvk/error.hpp"

namespace fvk {

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::RankOutOfRange: return "RankOutOfRange";
    case ErrorCode::ShapeMismatch: return "ShapeMismatch";
    case ErrorCode::NegativePad: return "NegativePad";
    case ErrorCode::ReflectPadTooLarge: return "ReflectPadTooLarge";
    case ErrorCode::EmptyDimension: return "EmptyDimension";
    case ErrorCode::DTypeNotAccepted: return "DTypeNotAccepted";
    case ErrorCode::IndexOverflow: return "IndexOverflow";
    case ErrorCode::DeviceLimit: return "DeviceLimit";
    case ErrorCode::FeatureMissing: return "FeatureMissing";
    case ErrorCode::ValueOutOfRange: return "ValueOutOfRange";
    case ErrorCode::InvalidArgument: return "InvalidArgument";
    case ErrorCode::UnsupportedLayout: return "UnsupportedLayout";
    case ErrorCode::InvalidFile: return "InvalidFile";
    case ErrorCode::DeviceNotFound: return "DeviceNotFound";
    case ErrorCode::VulkanError: return "VulkanError";
    case ErrorCode::ContractError: return "ContractError";
    case ErrorCode::NoKernel: return "NoKernel";
    case ErrorCode::Internal: return "Internal";
  }
  return "Unknown";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(std::string(to_string(code)) + ": " + message), code_(code) {}

std::string_view Error::message() const noexcept {
  return std::string_view(what()).substr(to_string(code_).size() + 2);
}

void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

}  // namespace fvk
