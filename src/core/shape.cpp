#include "fvk/shape.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "fvk/error.hpp"

namespace fvk {

std::int64_t numel(const Shape& shape) noexcept {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string to_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

std::optional<std::uint64_t> dense_bytes(const Shape& shape, std::size_t elem_bytes) noexcept {
  std::int64_t span = static_cast<std::int64_t>(elem_bytes);
  bool empty = false;
  for (const auto d : shape) {
    if (d < 0 || __builtin_mul_overflow(span, std::max<std::int64_t>(d, 1), &span)) return std::nullopt;
    empty = empty || d == 0;
  }
  return empty ? 0 : static_cast<std::uint64_t>(span);
}

std::uint64_t check_dense_shape(const Shape& shape, std::size_t elem_bytes, std::string_view what) {
  for (std::size_t a = 0; a < shape.size(); ++a)
    if (shape[a] < 0)
      fail(ErrorCode::InvalidArgument,
           fmt::format("{} dim {} is {} (shape {}); dims must be >= 0", what, a, shape[a], to_string(shape)));
  const auto bytes = dense_bytes(shape, elem_bytes);
  if (!bytes)
    fail(ErrorCode::IndexOverflow,
         fmt::format("{} shape {} of {}-byte elements spans more than 2^63-1 bytes (a 0 dim counted as 1, as its "
                     "strides count it)",
                     what, to_string(shape), elem_bytes));
  return *bytes;
}

}  // namespace fvk
