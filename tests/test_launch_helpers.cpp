// Host helpers of the pad wrappers. The divisor constants the kernels divide with
// (ops::with_divisors), held against plain division: the shaders compute q = (hi + ((n - hi) >> s1)) >> s2 with hi =
// mulhi(n, m); this test does the same arithmetic on the host for divisors from 1 to 2^32 - 1 and numerators at the
// edges of the 32-bit range and at random.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/launch.hpp"

namespace fvk::testing {
namespace {

std::uint32_t shader_divide(std::uint32_t n, std::uint32_t m, std::uint32_t shifts) {
  const auto hi = static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * m) >> 32);
  return (hi + ((n - hi) >> (shifts & 0xFFu))) >> (shifts >> 8);
}

TEST(Divisors, MultiplyHighMatchesDivisionOverTheWholeRange) {
  const Shape dims{1,           2, 3, 5, 7, 64, 68, 518, 481024, 65535, 65537, 2147483647LL, 2147483648LL, 2147483649LL,
                   4294967295LL};
  const std::vector<std::uint32_t> prefix{9, 9};  // whatever precedes the divisors stays untouched
  const auto buf = ops::with_divisors(prefix, dims);
  ASSERT_EQ(buf.size(), prefix.size() + 2 * dims.size());
  EXPECT_EQ(buf[0], 9u);
  std::mt19937 rng(5);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<std::uint32_t>(dims[i]);
    const std::uint32_t m = buf[prefix.size() + i], shifts = buf[prefix.size() + dims.size() + i];
    std::vector<std::uint32_t> numerators{0,     1,           d - 1,       d,           d + 1,      2 * d - 1,
                                          2 * d, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (int k = 0; k < 20000; ++k) numerators.push_back(static_cast<std::uint32_t>(rng()));
    for (const auto n : numerators) ASSERT_EQ(shader_divide(n, m, shifts), n / d) << "n " << n << " d " << d;
  }
}

TEST(Coalesce, MergesUnpaddedNeighboursOnlyBelowTwoToTheThirtyOne) {
  // [40000, 60000, 3] padded on the last axis only: the first two are unpadded neighbours, but their
  // product (2.4e9) would not fit a signed 32-bit coordinate.
  const PadGeometry big{PadMode::Constant, {40000, 60000, 3}, {40000, 60000, 5}, {0, 0, 1}, {0, 0, 1}};
  EXPECT_EQ(ops::coalesce(big).in, (Shape{40000, 60000, 3}));
  const PadGeometry small{PadMode::Reflect, {4, 6, 3}, {4, 6, 5}, {0, 0, 1}, {0, 0, 1}};
  const auto c = ops::coalesce(small);
  EXPECT_EQ(c.in, (Shape{24, 3}));
  EXPECT_EQ(c.out, (Shape{24, 5}));
  EXPECT_EQ(c.left, (std::vector<std::int64_t>{0, 1}));
}

}  // namespace
}  // namespace fvk::testing
