// Shapes and the torch-ordered pad list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fvk {

using Shape = std::vector<std::int64_t>;

inline constexpr int kMaxRank = 8;

// Product of the dims (1 for rank 0). Dims are assumed checked (check_dense_shape).
std::int64_t numel(const Shape& shape) noexcept;
std::string to_string(const Shape& shape);

// The bytes of a dense tensor of `shape` with elements of `elem_bytes`; none where a dim is negative
// or where the product of the dims (a 0 counted as 1, as the dense strides count it) times
// elem_bytes exceeds 2^63-1: such a shape has no strides, even when it holds no element.
std::optional<std::uint64_t> dense_bytes(const Shape& shape, std::size_t elem_bytes) noexcept;
// dense_bytes, or an error naming `what`: InvalidArgument for a negative dim, IndexOverflow for the
// size. Every tensor the API creates passes it.
std::uint64_t check_dense_shape(const Shape& shape, std::size_t elem_bytes, std::string_view what);

}  // namespace fvk
