// Bit-exact conversions between double and the narrow IEEE-style float formats, rounding to nearest
// even once. Used by fill-value encoding and by the CPU reference; independent of any shader.
#pragma once

#include <cstdint>

namespace fvk::detail {

struct FloatFormat {
  int mantissa_bits;
  int exponent_bits;
};
inline constexpr FloatFormat kF16{10, 5};
inline constexpr FloatFormat kBF16{7, 8};
inline constexpr FloatFormat kF32{23, 8};

// Rounds `v` to the format (nearest even, subnormals kept). Sets *overflow when a finite v rounds to
// infinity.
std::uint32_t encode_float(double v, FloatFormat format, bool* overflow = nullptr) noexcept;
double decode_float(std::uint32_t bits, FloatFormat format) noexcept;

}  // namespace fvk::detail
