#include "float_bits.hpp"

#include <cmath>

namespace fvk::detail {

std::uint32_t encode_float(double v, FloatFormat f, bool* overflow) noexcept {
  if (overflow) *overflow = false;
  const std::uint32_t sign = std::signbit(v) ? 1u << (f.mantissa_bits + f.exponent_bits) : 0u;
  const std::uint32_t exp_all_ones = (1u << f.exponent_bits) - 1u;
  const std::uint32_t inf = sign | (exp_all_ones << f.mantissa_bits);
  if (std::isnan(v)) return inf | (1u << (f.mantissa_bits - 1));  // quiet NaN
  const double a = std::fabs(v);
  if (std::isinf(a)) return inf;
  if (a == 0) return sign;
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const int min_exp = 1 - bias;  // exponent of the smallest normal
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  const int exponent = e - 1 > min_exp ? e - 1 : min_exp;
  const double ulp = std::ldexp(1.0, exponent - f.mantissa_bits);
  const double q = std::nearbyint(a / ulp);  // exact scaling by a power of two, then round-even
  const double r = q * ulp;
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, -f.mantissa_bits), bias);
  if (r > largest) {
    if (overflow) *overflow = true;
    return inf;
  }
  if (r < std::ldexp(1.0, min_exp))  // subnormal: mantissa counts ulps of 2^(min_exp - m)
    return sign | static_cast<std::uint32_t>(q);
  int re = 0;
  std::frexp(r, &re);
  const int rexp = re - 1;
  const double mant = std::ldexp(r, -rexp) - 1.0;  // in [0, 1)
  const auto mbits = static_cast<std::uint32_t>(std::ldexp(mant, f.mantissa_bits));
  return sign | (static_cast<std::uint32_t>(rexp + bias) << f.mantissa_bits) | mbits;
}

double decode_float(std::uint32_t bits, FloatFormat f) noexcept {
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const std::uint32_t mant_mask = (1u << f.mantissa_bits) - 1u;
  const std::uint32_t exp_all_ones = (1u << f.exponent_bits) - 1u;
  const bool neg = (bits >> (f.mantissa_bits + f.exponent_bits)) & 1u;
  const std::uint32_t e = (bits >> f.mantissa_bits) & exp_all_ones;
  const std::uint32_t m = bits & mant_mask;
  double r = 0;
  if (e == exp_all_ones)
    r = m ? std::nan("") : INFINITY;
  else if (e == 0)
    r = std::ldexp(static_cast<double>(m), 1 - bias - f.mantissa_bits);
  else
    r = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.mantissa_bits), static_cast<int>(e) - bias);
  return neg ? -r : r;
}

}  // namespace fvk::detail
