#include "fvk/host_tensor.hpp"

#include <fmt/format.h>

#include "fvk/error.hpp"

namespace fvk {

void HostTensor::element_outside(std::size_t i, std::size_t size, const char* access) const {
  fail(ErrorCode::InvalidArgument,
       fmt::format("HostTensor::{}: element {} of {} bytes lies outside the {} bytes of a {} tensor of shape {}",
                   access, i, size, data.size(), name(dtype), to_string(shape)));
}

}  // namespace fvk
