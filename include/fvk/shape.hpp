// Shapes and the torch-ordered pad list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fvk {

using Shape = std::vector<std::int64_t>;

inline constexpr int kMaxRank = 8;

// Product of the dims (1 for rank 0). Dims are assumed non-negative.
std::int64_t numel(const Shape& shape) noexcept;
std::string to_string(const Shape& shape);

}  // namespace fvk
