// Host helpers of the pad wrappers. The pass choice of pad.comp (ops::plan_gather, at the end). The
// divisor constants the kernels divide with (ops::with_divisors), held against plain division: the
// shaders compute q = (hi + ((n - hi) >> s1)) >> s2 with hi = mulhi(n, m); this test does the same
// arithmetic on the host for divisors from 1 to 2^32 - 1 and numerators at the edges of the 32-bit
// range and at random.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/gather_plan.hpp"
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

// pad.comp's pass choice (ops::plan_gather) on the bench shapes and at the rules' edges: which pass
// and how many invocations. The GPU tests check that each pass writes the right bytes; this one that
// a shape reaches the pass the H200 measurements chose for it.
TEST(GatherPlan, BenchShapesTakeTheMeasuredPasses) {
  using ops::GatherPass;
  struct Case {
    const char* what;
    ops::GatherShape shape;
    GatherPass pass;
    std::uint64_t invocations, edge, slots;
  };
  auto tile2 = [](std::uint64_t chunks) { return (chunks + 511) / 512 * 256; };
  auto tile4 = [](std::uint64_t chunks) { return (chunks + 1023) / 1024 * 256; };
  auto four_apart = [](std::uint64_t chunks) { return (chunks + 127) / 128 * 32; };
  const std::uint64_t rank5_out = 4 * 16 * 68 * 68 * 68, rank5_in = 4 * 16 * 64 * 64 * 64;
  const std::uint64_t image_out = 16ull * 64 * 518 * 518, image_in = 16ull * 64 * 512 * 512;
  const std::vector<Case> cases{
      // rank5 forward, rows of 68 elements with pads of 2: the tile pass, two chunks per invocation,
      // where rows are not whole chunks (1 and 2 bytes: 68 and 136 bytes); the aligned-row pass, one
      // chunk per invocation, where destination and source rows are (4 and 8 bytes: 272/256 and
      // 544/512 bytes) and its pipeline is built for the geometry, else the tile pass.
      {"rank5 u8", {rank5_out, 1, 68, 2, 2, true, true}, GatherPass::Tile, tile2(rank5_out / 16), 0, 0},
      {"rank5 f16", {rank5_out, 2, 68, 2, 2, true, true}, GatherPass::Tile, tile2(rank5_out / 8), 0, 0},
      {"rank5 f32", {rank5_out, 4, 68, 2, 2, true, true}, GatherPass::AlignedRow, rank5_out / 4, 0, 0},
      {"rank5 i64", {rank5_out, 8, 68, 2, 2, true, true}, GatherPass::AlignedRow, rank5_out / 2, 0, 0},
      {"rank5 f32, shape_buf", {rank5_out, 4, 68, 2, 2, true, false}, GatherPass::Tile, tile2(rank5_out / 4), 0, 0},
      {"rank5 i64, shape_buf", {rank5_out, 8, 68, 2, 2, true, false}, GatherPass::Tile, tile2(rank5_out / 2), 0, 0},
      // With the group pass's pipeline built for the geometry, rows of 1- and 2-byte elements from
      // source rows of whole chunks, in groups of the fewest rows that make whole words, each group
      // in two pieces (invocations) from 10 words: rank-5 rows (one row a group, 17 words u8, 34
      // f16), rows of 38 from 32 (u8 two rows a group, 19 words; f16 one row, 19 words), rows of 70
      // from 64 u8 (two rows, 35 words), rows of 17 from 16 u8 (four rows, 17 words); rows of 20 u8
      // (one row, 5 words) in one piece.
      {"rank5 u8, group", {rank5_out, 1, 68, 2, 2, true, true, true}, GatherPass::Group, rank5_out / 68 * 2, 0, 0},
      {"rank5 f16, group", {rank5_out, 2, 68, 2, 2, true, true, true}, GatherPass::Group, rank5_out / 68 * 2, 0, 0},
      {"u8 38, group", {38 * 40000, 1, 38, 3, 3, true, true, true}, GatherPass::Group, 40000, 0, 0},
      {"f16 38, group", {38 * 40000, 2, 38, 3, 3, true, true, true}, GatherPass::Group, 80000, 0, 0},
      {"u8 70, group", {70 * 40000, 1, 70, 3, 3, true, true, true}, GatherPass::Group, 40000, 0, 0},
      {"u8 17, group", {17 * 40000, 1, 17, 1, 0, true, true, true}, GatherPass::Group, 20000, 0, 0},
      {"u8 20, group", {20 * 40000, 1, 20, 2, 2, true, true, true}, GatherPass::Group, 40000, 0, 0},
      // Not taken: source rows that are not whole chunks (u8 68 from 62), a group's source rows over
      // 256 bytes (u8 rows of 146 from 144, two a group; f16 rows of 140 from 136, one a group: 272
      // bytes), pieces over 36 words (f16 rows of 146 from 128: 73 words, pieces of 37), 4-byte
      // elements (the aligned-row pass), crops.
      {"u8 62+6", {rank5_out, 1, 68, 3, 3, true, true, true}, GatherPass::Tile, tile2(rank5_out / 16), 0, 0},
      {"u8 146", {146 * 8000, 1, 146, 1, 1, true, true, true}, GatherPass::Tile, tile2(73000), 0, 0},
      {"f16 140", {140 * 8000, 2, 140, 2, 2, true, true, true}, GatherPass::Tile, tile2(140 * 8000 / 8), 0, 0},
      {"f16 146", {146 * 8000, 2, 146, 9, 9, true, true, true}, GatherPass::Tile, tile2(146 * 8000 / 8), 0, 0},
      {"rank5 f32, group", {rank5_out, 4, 68, 2, 2, true, true, true}, GatherPass::AlignedRow, rank5_out / 4, 0, 0},
      {"rank5 crop u8, g", {rank5_in, 1, 64, 0, 0, true, true, true}, GatherPass::RowTwo, tile2(rank5_in / 16), 0, 0},
      // Destination rows of whole chunks over source rows that are not (f32 rows of 64 from 62):
      // the tile pass.
      {"f32 68 from 62", {rank5_out, 4, 68, 3, 3, true, true}, GatherPass::Tile, tile2(rank5_out / 4), 0, 0},
      // Rows with an innermost pad under 1 MiB, 1- to 4-byte elements: the word pass, one invocation
      // per 32-bit word; 8-byte elements, and rows without an innermost pad: the row pass.
      {"small f32 68", {4 * 68 * 10, 4, 68, 2, 2, false}, GatherPass::Word, 4 * 68 * 10, 0, 0},
      {"small i64 34", {4 * 34 * 10, 8, 34, 2, 2, false}, GatherPass::Row, (4 * 34 * 10 / 2 + 255) / 256 * 256, 0, 0},
      {"small f32 68, crop",
       {4 * 68 * 10, 4, 68, 0, 0, false},
       GatherPass::Row,
       (4 * 68 * 10 / 4 + 255) / 256 * 256,
       0,
       0},
      // image forward, rows of 518: four per invocation for 1 to 4 bytes, two for 8.
      {"image u8", {image_out, 1, 518, 3, 3, true}, GatherPass::TileFour, tile4((image_out + 15) / 16), 0, 0},
      {"image f32", {image_out, 4, 518, 3, 3, true}, GatherPass::TileFour, tile4(image_out / 4), 0, 0},
      {"image i64", {image_out, 8, 518, 3, 3, true}, GatherPass::Tile, tile2(image_out / 2), 0, 0},
      // Aligned rows with a pad over 16 bytes: the tile pass.
      {"i64 pad of 3", {rank5_out, 8, 68, 3, 1, true, true}, GatherPass::Tile, tile2(rank5_out / 2), 0, 0},
      // crops (grad_in rows of whole chunks, no pads): the tile pass from 512 bytes, the row pass
      // below, the inner pass alone from 8192.
      {"image crop u8", {image_in, 1, 512, 0, 0, true}, GatherPass::Tile, tile2(image_in / 16), 0, 0},
      {"image crop i64", {image_in, 8, 512, 0, 0, true}, GatherPass::Tile, tile2(image_in / 2), 0, 0},
      {"rank5 crop u8", {rank5_in, 1, 64, 0, 0, true}, GatherPass::RowTwo, tile2(rank5_in / 16), 0, 0},
      {"rank5 crop i64", {rank5_in, 8, 64, 0, 0, true}, GatherPass::Tile, tile2(rank5_in / 2), 0, 0},
      {"audio crop f32", {64ull * 480000, 4, 480000, 0, 0, true}, GatherPass::Inner, four_apart(64ull * 120000), 0, 0},
      // audio forward, rows of 481024 with pads of 512: the inner pass and the edge pass, 130 rows
      // boundaries' worth of (1024 / 4 + 2) slots.
      {"audio f32",
       {64ull * 481024, 4, 481024, 512, 512, true},
       GatherPass::Inner,
       four_apart(64ull * 120256),
       65 * 258,
       258},
      // Under 1 MiB: the word pass on rows under 512 bytes with an innermost pad (1- to 4-byte
      // elements), the inner pass alone on whole rows from 512, the one pass on rows with edges from
      // 512 (four chunks 32 apart from 8 KiB but for 1-byte elements).
      {"small f32", {8 * 3 * 34 * 34, 4, 34, 1, 1, false}, GatherPass::Word, 8 * 3 * 34 * 34, 0, 0},
      {"small f16", {8 * 3 * 34 * 34, 2, 34, 1, 1, false}, GatherPass::Word, 8 * 3 * 34 * 34 / 2, 0, 0},
      {"small u8", {8 * 3 * 34 * 34, 1, 34, 1, 1, false}, GatherPass::Word, 8 * 3 * 34 * 34 / 4, 0, 0},
      {"small u8, odd", {5 * 35, 1, 35, 2, 1, false}, GatherPass::Word, (5 * 35 + 3) / 4, 0, 0},
      // The word pass's bounds: rows of 16 to 511 bytes (15 and 512 take the one pass), under 1 MiB.
      {"small u8 16", {5 * 16, 1, 16, 1, 0, false}, GatherPass::Word, 5 * 16 / 4, 0, 0},
      {"small u8 15", {5 * 15, 1, 15, 1, 0, false}, GatherPass::One, (5 * 15 + 15) / 16, 0, 0},
      {"small u8 511", {5 * 511, 1, 511, 0, 1, false}, GatherPass::Word, (5 * 511 + 3) / 4, 0, 0},
      {"small u8 512", {5 * 512, 1, 512, 0, 1, false}, GatherPass::One, 5 * 512 / 16, 0, 0},
      {"u8 34, 1 MiB", {1u << 20, 1, 34, 1, 1, true}, GatherPass::Tile, tile2((1u << 20) / 16), 0, 0},
      {"small crop 512", {4 * 128, 4, 128, 0, 0, false}, GatherPass::Inner, four_apart(128), 0, 0},
      {"small 520", {4 * 130, 4, 130, 1, 1, false}, GatherPass::One, (4 * 130 + 3) / 4, 0, 0},
      {"small 8 KiB f32", {2 * 2050, 4, 2050, 1, 1, false}, GatherPass::One, four_apart((2 * 2050 + 3) / 4), 0, 0},
      {"small 8 KiB u8", {2 * 8200, 1, 8200, 1, 1, false}, GatherPass::One, (2 * 8200 + 15) / 16, 0, 0},
      // Rows under 16 bytes: the one pass, on any size.
      {"rows of 12 bytes", {3 << 20, 4, 3, 1, 1, true}, GatherPass::One, (3ull << 20) / 4, 0, 0},
      // Rows of 8192 bytes and more with edges on large destinations: inner + edge.
      {"rows of 8 KiB", {256 * 2048, 4, 2048, 1, 0, true}, GatherPass::Inner, four_apart(256 * 512), 257 * 2, 2},
  };
  for (const auto& c : cases) {
    const auto plan = ops::plan_gather(c.shape);
    EXPECT_EQ(plan.pass, c.pass) << c.what;
    EXPECT_EQ(plan.invocations, c.invocations) << c.what;
    EXPECT_EQ(plan.edge, c.edge) << c.what;
    EXPECT_EQ(plan.slots, c.slots) << c.what;
    // The group pass's constants: pieces per group and the stage of a workgroup of 64, in words.
    if (plan.pass != GatherPass::Group) {
      EXPECT_EQ(plan.pieces, 0u) << c.what;
      EXPECT_EQ(plan.stage_words, 0u) << c.what;
    }
  }
  struct GroupCase {
    ops::GatherShape shape;
    std::uint64_t pieces, stage_words;
  };
  for (const auto& [shape, pieces, stage_words] :
       std::vector<GroupCase>{{{rank5_out, 1, 68, 2, 2, true, true, true}, 2, 32 * 17},
                              {{rank5_out, 2, 68, 2, 2, true, true, true}, 2, 32 * 34},
                              {{70 * 40000, 1, 70, 3, 3, true, true, true}, 2, 32 * 35},
                              {{20 * 40000, 1, 20, 2, 2, true, true, true}, 1, 64 * 5}}) {
    const auto plan = ops::plan_gather(shape);
    EXPECT_EQ(plan.pieces, pieces) << shape.row;
    EXPECT_EQ(plan.stage_words, stage_words) << shape.row;
  }
}

}  // namespace
}  // namespace fvk::testing
