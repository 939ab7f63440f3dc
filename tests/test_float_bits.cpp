// The narrow-float conversions the CPU reference and the fill values use (core/float_bits), held to
// properties of IEEE round-to-nearest-even over every f16 and bf16 code, and to the compiler's own
// conversions (the CPU's binary32 rounding; GCC's _Float16 where it has one) on random doubles.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/float_bits.hpp"

namespace fvk::testing {
namespace {

using detail::decode_float;
using detail::encode_float;
using detail::FloatFormat;

struct Named {
  const char* name;
  FloatFormat format;
};
constexpr Named kNarrow[] = {{"f16", detail::kF16}, {"bf16", detail::kBF16}};

std::uint32_t code_count(FloatFormat f) { return 1u << (1 + f.mantissa_bits + f.exponent_bits); }
std::uint32_t exponent_mask(FloatFormat f) { return ((1u << f.exponent_bits) - 1u) << f.mantissa_bits; }
bool is_nan_code(std::uint32_t c, FloatFormat f) {
  return (c & exponent_mask(f)) == exponent_mask(f) && (c & ((1u << f.mantissa_bits) - 1u)) != 0;
}

TEST(FloatBits, EveryCodeRoundTrips) {
  for (const auto& [name, f] : kNarrow)
    for (std::uint32_t c = 0; c < code_count(f); ++c) {
      const double v = decode_float(c, f);
      bool overflow = true;
      const std::uint32_t back = encode_float(v, f, &overflow);
      EXPECT_FALSE(overflow) << name << " 0x" << std::hex << c;
      if (is_nan_code(c, f)) {
        EXPECT_TRUE(std::isnan(v)) << name << " 0x" << std::hex << c;
        EXPECT_TRUE(is_nan_code(back, f)) << name << " 0x" << std::hex << c;
        EXPECT_EQ(back >> (f.mantissa_bits + f.exponent_bits), c >> (f.mantissa_bits + f.exponent_bits)) << "sign";
      } else {
        ASSERT_EQ(back, c) << name << " decodes 0x" << std::hex << c << " to " << v;
      }
    }
}

// Between two neighbouring finite codes of one sign: the midpoint goes to the one with an even
// mantissa, anything nearer one of them to that one (the smallest steps a double can take).
TEST(FloatBits, NearestWithTiesToEven) {
  for (const auto& [name, f] : kNarrow)
    for (std::uint32_t c = 0; c + 1 < code_count(f); ++c) {
      const double lo = decode_float(c, f), hi = decode_float(c + 1, f);
      if (!std::isfinite(lo) || !std::isfinite(hi) || std::signbit(lo) != std::signbit(hi)) continue;
      const double mid = lo + (hi - lo) / 2;  // exact: a narrow format's neighbours are close in binary64
      const std::uint32_t even = (c & 1u) == 0 ? c : c + 1;
      ASSERT_EQ(encode_float(mid, f), even) << name << " midpoint of 0x" << std::hex << c;
      ASSERT_EQ(encode_float(std::nextafter(mid, lo), f), c)
          << name << " just under the midpoint of 0x" << std::hex << c;
      ASSERT_EQ(encode_float(std::nextafter(mid, hi), f), c + 1)
          << name << " just over the midpoint of 0x" << std::hex << c;
    }
}

// Past the largest finite value: from half an ulp up (a tie with infinity's code, which is even) it
// is infinity, with the overflow flag; just under, the largest value; and the tiniest values to zero.
TEST(FloatBits, OverflowAndUnderflow) {
  for (const auto& [name, f] : kNarrow) {
    const std::uint32_t inf = exponent_mask(f);
    const std::uint32_t largest = inf - 1u;
    const double big = decode_float(largest, f);
    const double half_ulp = (big - decode_float(largest - 1u, f)) / 2;
    bool overflow = false;
    EXPECT_EQ(encode_float(big + half_ulp, f, &overflow), inf) << name;
    EXPECT_TRUE(overflow) << name;
    EXPECT_EQ(encode_float(std::nextafter(big + half_ulp, 0.0), f, &overflow), largest) << name;
    EXPECT_FALSE(overflow) << name;
    EXPECT_EQ(encode_float(-1e300, f, &overflow), inf | (1u << (f.mantissa_bits + f.exponent_bits))) << name;
    EXPECT_TRUE(overflow) << name;
    EXPECT_EQ(encode_float(INFINITY, f, &overflow), inf) << name;
    EXPECT_FALSE(overflow) << name << ": infinity is not an overflow";
    const double tiniest = decode_float(1u, f);
    EXPECT_EQ(encode_float(tiniest / 2, f), 0u) << name << ": a tie with zero goes to zero";
    EXPECT_EQ(encode_float(std::nextafter(tiniest / 2, 1.0), f), 1u) << name;
    EXPECT_EQ(encode_float(-std::numeric_limits<double>::denorm_min(), f), 1u << (f.mantissa_bits + f.exponent_bits))
        << name << ": a binary64 subnormal is a signed zero";
  }
}

// Random doubles: raw bit patterns (every exponent, so overflow, zero and subnormals) and values in
// the formats' ranges.
template <typename Check>
void for_random_doubles(Check&& check) {
  std::mt19937_64 rng(20261204);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-160, 140);
  for (int i = 0; i < 300000; ++i) {
    const double raw = std::bit_cast<double>(rng());
    if (!std::isnan(raw)) check(raw);
    check(std::ldexp(unit(rng), exponent(rng)));
  }
}

TEST(FloatBits, F32MatchesTheCpu) {
  for_random_doubles([](double x) {
    ASSERT_EQ(encode_float(x, detail::kF32), std::bit_cast<std::uint32_t>(static_cast<float>(x))) << std::hexfloat << x;
  });
}

#ifdef __FLT16_MANT_DIG__
TEST(FloatBits, F16MatchesTheCompiler) {
  for_random_doubles([](double x) {
    ASSERT_EQ(encode_float(x, detail::kF16), std::bit_cast<std::uint16_t>(static_cast<_Float16>(x)))
        << std::hexfloat << x;
  });
}
#endif

}  // namespace
}  // namespace fvk::testing
