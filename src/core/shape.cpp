#include "fvk/shape.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvk {

std::int64_t numel(const Shape& shape) noexcept {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string to_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

}  // namespace fvk
