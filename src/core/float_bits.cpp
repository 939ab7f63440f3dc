#include "float_bits.hpp"

#include <bit>
#include <cmath>

namespace fvk::detail {

// Both conversions work on the IEEE binary64 fields directly: the CPU reference converts every
// element of every 16-bit test tensor, and libm's frexp/ldexp made that most of a test's time.

std::uint32_t encode_float(double v, FloatFormat f, bool* overflow) noexcept {
  if (overflow) *overflow = false;
  const int m = f.mantissa_bits;
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const std::uint32_t sign = (bits >> 63) != 0 ? 1u << (m + f.exponent_bits) : 0u;
  const std::uint32_t exp_all_ones = (1u << f.exponent_bits) - 1u;
  const std::uint32_t inf = sign | (exp_all_ones << m);
  const auto dexp = static_cast<int>((bits >> 52) & 0x7ffu);
  const std::uint64_t dmant = bits & ((std::uint64_t{1} << 52) - 1u);
  if (dexp == 0x7ff) return dmant != 0 ? inf | (1u << (m - 1)) : inf;  // NaN (made quiet) or infinity
  // Zero, and binary64 subnormals (below 2^-1022): under half the smallest subnormal of any format
  // here, so they round to a signed zero.
  if (dexp == 0) return sign;
  // |v| = sig * 2^(dexp - 1075), sig of 53 bits. The format's exponent field for it would be
  // `field`; below 1 the result is subnormal and counts ulps of 2^(1 - bias - m), which drops
  // (1 - field) more bits.
  const std::uint64_t sig = dmant | (std::uint64_t{1} << 52);
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const int field = dexp - 1023 + bias;
  const int drop = 52 - m + (field < 1 ? 1 - field : 0);
  if (drop > 53) return sign;  // under half the smallest subnormal
  // Round to nearest even on the dropped bits (1 <= drop <= 53 for every format here).
  std::uint64_t q = sig >> drop;
  const std::uint64_t rest = sig & ((std::uint64_t{1} << drop) - 1u);
  const std::uint64_t half = std::uint64_t{1} << (drop - 1);
  if (rest > half || (rest == half && (q & 1u) != 0)) ++q;
  // A subnormal's field is 0 and q its mantissa; a normal's q holds the implicit bit, which adding
  // it to (field - 1) << m turns into the field. A carry out of the mantissa lands in the field.
  const std::uint64_t magnitude = field < 1 ? q : (static_cast<std::uint64_t>(field - 1) << m) + q;
  if (magnitude >= (std::uint64_t{exp_all_ones} << m)) {
    if (overflow) *overflow = true;
    return inf;
  }
  return sign | static_cast<std::uint32_t>(magnitude);
}

double decode_float(std::uint32_t bits, FloatFormat f) noexcept {
  const int m = f.mantissa_bits;
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const std::uint32_t exp_all_ones = (1u << f.exponent_bits) - 1u;
  const bool neg = ((bits >> (m + f.exponent_bits)) & 1u) != 0;
  const std::uint32_t e = (bits >> m) & exp_all_ones;
  const std::uint64_t mant = bits & ((1u << m) - 1u);
  double r = 0;
  if (e == exp_all_ones) {
    r = mant != 0 ? std::nan("") : INFINITY;
  } else if (e == 0) {
    // mant ulps of 2^(1 - bias - m): a power of two that binary64 holds as a normal number for every
    // format here, times an integer of at most m bits, exact.
    const double ulp = std::bit_cast<double>(static_cast<std::uint64_t>(1023 + 1 - bias - m) << 52);
    r = static_cast<double>(mant) * ulp;
  } else {
    r = std::bit_cast<double>((static_cast<std::uint64_t>(static_cast<int>(e) - bias + 1023) << 52) |
                              (mant << (52 - m)));
  }
  return neg ? -r : r;
}

}  // namespace fvk::detail
