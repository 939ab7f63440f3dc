// Random geometries through the pad family's split paths, bit for bit against the CPU reference:
// pad.comp's inner pass (four chunks 32 apart, rows of 512 bytes and more) with its edge pass, and
// the deterministic backward's copy, edge and multi-row passes. The wrappers only take those paths
// on large tensors (where they measured faster); a context with `always_split_passes` takes them on
// small ones, so many shapes fit in a few seconds on lavapipe. Outputs start as 0xA5 bytes, so a
// chunk that no pass writes shows as a mismatch. (A chunk two passes both write gets the same bytes
// twice and does not show: that the passes are disjoint was checked by simulating their
// enumeration.) pad.comp's row pass (rows of 16 to 511 bytes) takes two chunks per invocation here,
// as on large tensors, and its tile pass (rows of 16 to 8191 bytes with edges, and rows of whole
// chunks from 512 bytes: the crops of those here) two or four. A second suite sends the same kind
// of geometries through the passes the wrappers choose by default on small tensors: pad.comp's row
// pass with one chunk per invocation and its one pass, the deterministic backward's element pass
// (short contributor lists) and, for longer lists, its row pass and one pass (those two on tensors
// of 1 MiB and more: test_backward.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fvk/error.hpp"
#include "gpu_fixture.hpp"
#include "ops/gather_plan.hpp"
#include "ops/launch.hpp"
#include "runtime/device.hpp"
#include "selftest/harness.hpp"

namespace fvk::testing {
namespace {

// Both suites' contexts start new tensors as 0xA5 bytes (a chunk no pass writes keeps them); the
// split one also takes always_split_passes. A portable build's contexts have the subgroup features
// off as well (context_for).
ContextOptions default_options() {
  ContextOptions o;
  o.poison_new_tensors = true;
  return o;
}
ContextOptions split_options() {
  ContextOptions o = default_options();
  o.always_split_passes = true;
  return o;
}

// A random geometry for the target: ranks 1-5, innermost dims from 1 to 700 (rows from a few bytes
// to past 512 bytes for every width), five in twelve of them whole 16-byte chunks (short and past
// 512 bytes), pads from 0 to wider than a chunk (reflect: at most dim - 1), at most 150k elements.
selftest::Case random_case(const selftest::Target& t, std::mt19937_64& rng) {
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  selftest::Case c;
  c.seed = rng();
  if (t.dtype == DType::Bool)
    c.fill = Scalar::from_bool(true);
  else if (is_float(t.dtype))
    c.fill = Scalar::from_double(-1.5);
  else
    c.fill = Scalar::from_int(is_signed_int(t.dtype) ? -7 : 9);
  const int rank = static_cast<int>(uniform(1, 5));
  const int width = static_cast<int>(byte_width(t.dtype));
  const int kind = static_cast<int>(uniform(0, 11));
  std::int64_t inner = kind < 4 ? uniform(1, 70) : kind < 7 ? uniform(70, 200) : uniform(512 / width, 700);
  // Rows of whole 16-byte chunks (the input's), in five kinds of twelve; in three of them without an
  // innermost pad.
  const bool whole_chunks = kind == 3 || kind == 6 || kind >= 9;
  const bool no_inner_pad = kind == 3 || kind == 9 || kind == 11;
  if (whole_chunks) inner = std::max<std::int64_t>(1, inner / (16 / width)) * (16 / width);
  c.shape.assign(rank, 1);
  c.shape.back() = inner;
  std::int64_t total = inner;
  for (int a = rank - 2; a >= 0; --a) {
    c.shape[a] = std::min<std::int64_t>(uniform(1, 6), std::max<std::int64_t>(1, 150000 / total));
    total *= c.shape[a];
  }
  c.left.assign(rank, 0);
  c.right.assign(rank, 0);
  for (int a = 0; a < rank; ++a) {
    if (no_inner_pad && a == rank - 1) continue;
    const std::int64_t cap = t.mode == PadMode::Reflect ? c.shape[a] - 1 : 20;
    auto pad = [&]() { return std::min(cap, uniform(0, 5) == 0 ? uniform(0, 20) : uniform(0, 3)); };
    c.left[a] = pad();
    c.right[a] = pad();
  }
  return c;
}

// `cases` random geometries, each run once; with `hot`, each is run again after the context's
// background builds are done, so that the pipelines its first run made hot (specialize_after 1) run.
void run_random_cases(Context& ctx, const selftest::Target& target, int cases = 16, bool hot = false) {
  if (const auto missing = selftest::missing_features(ctx, target); !missing.empty())
    GTEST_SKIP() << target.kernel << " needs device feature " << missing.front() << ", which this device lacks";
  const std::size_t seen = ctx.validation_messages().size();
  std::mt19937_64 rng(std::hash<std::string>{}(target.kernel) ^ static_cast<std::uint64_t>(target.dtype));
  int ran = 0;
  for (int attempt = 0; attempt < 4 * cases && ran < cases; ++attempt) {
    const auto c = random_case(target, rng);
    selftest::Outcome o;
    try {
      o = selftest::run_case(ctx, target, c);
      if (hot && o.pass) {
        ctx.finish_background_builds();
        o = selftest::run_case(ctx, target, c);
        if (!o.pass) o.detail = "the second run, with the pipelines built when hot: " + o.detail;
      }
    } catch (const Error& e) {
      // A device that ends long loops (lavapipe) refuses sums longer than it runs: that refusal
      // has its own test; here another geometry takes the case's place.
      if (e.code() != ErrorCode::DeviceLimit) throw;
      continue;
    }
    ++ran;
    EXPECT_TRUE(o.pass) << target.kernel << " " << name(target.dtype) << " shape " << to_string(c.shape) << " left "
                        << fmt::format("{}", fmt::join(c.left, ",")) << " right "
                        << fmt::format("{}", fmt::join(c.right, ",")) << ": " << o.detail;
  }
  EXPECT_EQ(ran, cases) << "too many random cases refused";
  const auto messages = ctx.validation_messages();
  for (std::size_t i = seen; i < messages.size(); ++i) ADD_FAILURE() << "validation layer: " << messages[i];
}

class SplitPasses : public ::testing::TestWithParam<selftest::Target> {};

TEST_P(SplitPasses, RandomGeometriesMatchTheReference) {
  run_random_cases(context_for(GetParam(), split_options()), GetParam());
}

class DefaultPasses : public ::testing::TestWithParam<selftest::Target> {};

TEST_P(DefaultPasses, RandomGeometriesMatchTheReference) {
  run_random_cases(context_for(GetParam(), default_options()), GetParam());
}

// The kernels with split paths: forward pads and every backward (the atomic one adds the pad
// elements onto a crop). The portable builds (with the split passes only) with one dtype each, u8,
// f16 or f32 as the tile-pass corners take them: they move bytes as their fast builds do (those run
// every dtype here), and differ only in the tile passes' queues, which these tensors reach only
// with always_split_passes. The f64 atomic backwards' portable builds add differently in every pass
// (compare-and-swap loops, where the fast builds use the f64 atomic add, which lavapipe lacks): both
// modes, with the split passes and without.
std::vector<selftest::Target> split_targets(bool portable = true) {
  std::vector<selftest::Target> out;
  for (const auto& t : selftest::all_targets())
    if ((t.op == selftest::Op::Pad || t.op == selftest::Op::PadBackward) &&
        (!ops::is_portable(t) || t.dtype == DType::F64 ||
         (portable && (t.dtype == DType::U8 || t.dtype == DType::F16 || t.dtype == DType::F32))))
      out.push_back(t);
  return out;
}

std::string target_name(const ::testing::TestParamInfo<selftest::Target>& info) {
  return fmt::format("{}_{}", info.param.kernel, name(info.param.dtype));
}

// The tile-pass tests take one dtype per element width.
bool width_representative(DType dtype) {
  const auto width = byte_width(dtype);
  return dtype == (width == 1 ? DType::U8 : width == 2 ? DType::F16 : width == 4 ? DType::F32 : DType::I64);
}

struct Geometry {
  Shape in;
  std::vector<std::int64_t> left, right;
};

// The case of geometry g for `target`: reflect pads cut to dim - 1.
selftest::Case geometry_case(const selftest::Target& target, const Geometry& g, std::uint64_t seed) {
  selftest::Case c;
  c.shape = g.in;
  c.left = g.left;
  c.right = g.right;
  for (std::size_t a = 0; a < g.in.size() && target.mode == PadMode::Reflect; ++a) {
    c.left[a] = std::min(c.left[a], g.in[a] - 1);
    c.right[a] = std::min(c.right[a], g.in[a] - 1);
  }
  c.fill = Scalar::from_int(9);
  c.seed = seed;
  return c;
}

// Runs each geometry through `target` with the split passes (reflect pads cut to dim - 1), bit for
// bit against the CPU reference, and fails on any validation message.
void run_geometries(const selftest::Target& target, const std::vector<Geometry>& geometries, std::uint64_t seed,
                    const ContextOptions& options = split_options()) {
  Context& ctx = context_for(target, options);
  const std::size_t seen = ctx.validation_messages().size();
  for (const auto& g : geometries) {
    const selftest::Case c = geometry_case(target, g, seed);
    const auto o = selftest::run_case(ctx, target, c);
    EXPECT_TRUE(o.pass) << target.kernel << " shape " << to_string(c.shape) << ": " << o.detail;
  }
  const auto messages = ctx.validation_messages();
  for (std::size_t i = seen; i < messages.size(); ++i) ADD_FAILURE() << "validation layer: " << messages[i];
}

// pad.comp's tile pass (rows of 16 to 8191 bytes with an innermost pad or a part chunk): plain chunks
// first, the others queued in shared memory and written after a barrier (8-byte elements: written
// by their own invocation, no queue). Its corners, per mode and width: rows of exactly one chunk
// with pads (every chunk queued, the queue full), rows just under 512 and 2048 bytes (two chunks
// per invocation, and four from 512 bytes for 1- to 4-byte elements), rows wholly in a constant
// pad of an outer axis (the fill chunks), a part chunk at the destination's end, a single row.
TEST(PadTilePass, CornerGeometries) {
  for (const auto& target : split_targets()) {
    if (target.op != selftest::Op::Pad || !width_representative(target.dtype)) continue;
    const std::int64_t width = static_cast<std::int64_t>(byte_width(target.dtype));
    const std::int64_t chunk = 16 / width;
    run_geometries(target,
                   {
                       {{300, std::max<std::int64_t>(2, chunk - 2)}, {0, 1}, {0, 1}},
                       {{7, 9, 511 / width - 3}, {2, 2, 1}, {1, 3, 2}},
                       {{3, 11, 2047 / width - 6}, {1, 0, 3}, {2, 1, 3}},
                       {{3, 33}, {0, 1}, {0, 1}},
                       {{1999 / width - 12}, {5}, {7}},
                   },
                   17);
  }
}

// The tile pass on rows whose source and destination are whole 32-bit words (rank-5 bench rows: 64
// elements padded by 2 and 2): words of pads at both ends, rows in outer pads, pads of 1 to 4
// elements on either side, rows of up to 128 words, and a row of exactly one chunk.
TEST(PadTilePass, WordRows) {
  for (const auto& target : split_targets()) {
    if (target.op != selftest::Op::Pad || !width_representative(target.dtype)) continue;
    const std::int64_t width = static_cast<std::int64_t>(byte_width(target.dtype));
    const std::int64_t w = 4 / std::min<std::int64_t>(width, 4);  // elements per word (1 for 8 bytes)
    run_geometries(target,
                   {
                       {{2, 3, 5, 6, 16 * w}, {0, 1, 2, 2, 2}, {0, 1, 2, 2, 2}},
                       {{5, 7, 10 * w}, {1, 2, w}, {2, 1, 3 * w}},
                       {{4, 9, 6 * w}, {2, 0, 3}, {1, 2, 1}},
                       {{3, 120 * w}, {1, 1}, {0, 4 * w}},
                       {{40, 2 * w}, {1, w}, {0, w}},
                   },
                   29);
  }
}

// The tile pass's chunks that hold the pads between two rows (1- and 2-byte forward pads, where
// they go to the workgroup's queue): rows not of whole words, with pads at every offset of a chunk;
// a left or a right pad alone; pads wider than a chunk; reflect pads as wide as the row allows;
// outer pads (rows that are not back to back in the source: plane edges, rows wholly in a pad);
// rows under one chunk; and the rank-5 bench rows. (A design that wrote such chunks from one source
// window was measured slower on the H200, docs/data/h200_ab_gap_chunks.md; these geometries were
// its test, and checked it against three deliberate faults.)
TEST(PadTilePass, RowBoundaryChunks) {
  for (const auto& target : split_targets()) {
    if (target.op != selftest::Op::Pad || byte_width(target.dtype) > 2 || !width_representative(target.dtype)) continue;
    const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(target.dtype));
    run_geometries(target,
                   {
                       {{2, 5, 6, 64}, {0, 2, 2, 2}, {0, 2, 2, 2}},
                       {{4, 7, 37}, {0, 1, 3}, {1, 0, 5}},
                       {{3, 6, 29}, {1, 0, 0}, {0, 2, 4}},
                       {{3, 6, 29}, {0, 1, 5}, {2, 0, 0}},
                       {{2, 5, 41}, {1, 1, 20}, {0, 1, 17}},
                       {{5, 4, chunk + 1}, {1, 1, chunk}, {1, 2, chunk}},
                       {{6, 3, 2 * chunk + 3}, {2, 1, chunk - 1}, {1, 2, 1}},
                       {{3, 9, chunk - 3}, {0, 2, 2}, {1, 1, 3}},
                       {{20, 50}, {1, 6}, {2, 9}},
                   },
                   31);
  }
}

// The tile pass on rows of whole chunks from 512 to 8191 bytes (two chunks per invocation, every chunk
// plain): crops (the constant backward, with innermost pads of grad_out, so unaligned source rows)
// and forward pads of outer axes only; rows of exactly 512 bytes, a few KiB, and just under 8192,
// with rows wholly in outer pads and a last workgroup that is only partly used.
TEST(PadTilePass, WholeChunkRows) {
  for (const auto& target : split_targets()) {
    const bool crop = target.op == selftest::Op::PadBackward && target.mode == PadMode::Constant;
    if (!(crop || target.op == selftest::Op::Pad) || !width_representative(target.dtype)) continue;
    const std::int64_t width = static_cast<std::int64_t>(byte_width(target.dtype));
    const std::int64_t inner_pad = crop ? 1 : 0;
    run_geometries(target,
                   {
                       {{5, 512 / width}, {1, 3 * inner_pad}, {2, inner_pad}},
                       {{3, 4, 1040 / width}, {1, 2, inner_pad}, {0, 1, 5 * inner_pad}},
                       {{2, 3, 8176 / width}, {0, 1, 2 * inner_pad}, {1, 1, 0}},
                   },
                   23);
  }
}

// Split passes, each built for its geometry (ShapeConstants::Always): the dims, pads and element
// count as specialization constants.
ContextOptions shape_constant_options() {
  ContextOptions o = split_options();
  o.shape_constants = ShapeConstants::Always;
  return o;
}

// pad.comp's aligned-row pass (destination and source rows both whole 16-byte chunks, with innermost
// pads of at most 16 bytes: the rank-5 bench rows of 4- and 8-byte elements), one chunk per
// invocation from a 32-byte window of its source row: plain chunks are one shift of the window for
// the whole tensor, pad chunks take their elements from the window at the row's start or end.
// Fixed corners per mode and width (pads at every offset of a chunk, a left or a right pad alone,
// pads of exactly a chunk, rows wholly in outer pads, source rows of one chunk, rows of 512 bytes
// and more, rank 1; and pads wider than a chunk, which the tile pass takes), then random geometries
// of that kind. The wrapper takes the pass only where its pipeline is built for the geometry: here
// always (ShapeConstants::Always).
TEST(PadAlignedRowPass, Geometries) {
  for (const auto& target : split_targets()) {
    if (target.op != selftest::Op::Pad || !width_representative(target.dtype)) continue;
    const std::int64_t c = 16 / static_cast<std::int64_t>(byte_width(target.dtype));  // elements per chunk
    std::vector<Geometry> geometries{
        {{2, 3, 5, 6, 4 * c}, {0, 1, 2, 2, 2}, {0, 1, 2, 2, c - 2}},
        {{5, 7, 2 * c}, {1, 2, 1}, {2, 1, c - 1}},
        {{4, 3 * c}, {1, c + 3}, {2, 2 * c - 3}},
        {{3, 4, 2 * c}, {0, 1, c}, {1, 0, 0}},
        {{3, 4, 2 * c}, {1, 0, 0}, {0, 2, c}},
        {{6, 2, 2 * c}, {3, 2, 1}, {2, 2, c - 1}},
        {{9, 5, c}, {0, 1, c / 2}, {1, 1, c - c / 2}},
        {{8 * c}, {3 % c}, {c - 3 % c}},
        {{2, 2, 3, 512 / (16 / c) + c}, {0, 1, 1, 5 % c}, {1, 0, 1, c - 5 % c}},
    };
    std::mt19937_64 rng(std::hash<std::string>{}(target.kernel) ^ 0xA11u);
    auto uniform = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    for (int i = 0; i < 12; ++i) {
      const int rank = static_cast<int>(uniform(1, 5));
      Geometry g;
      g.in.assign(rank, 1);
      g.in.back() = c * uniform(1, 24);
      for (int a = 0; a < rank - 1; ++a) g.in[a] = uniform(1, 5);
      g.left.assign(rank, 0);
      g.right.assign(rank, 0);
      for (int a = 0; a < rank - 1; ++a) {
        g.left[a] = uniform(0, 2);
        g.right[a] = uniform(0, 2);
      }
      // Innermost pads of at most a chunk each, summing to one chunk or two, within the row
      // (reflect's limit) for every mode.
      const std::int64_t row = g.in.back();
      if (uniform(0, 3) == 0) {
        g.left.back() = g.right.back() = c;
      } else {
        g.left.back() = uniform(0, c);
        g.right.back() = c - g.left.back();
      }
      if (g.left.back() > row - 1 || g.right.back() > row - 1) continue;
      geometries.push_back(g);
    }
    run_geometries(target, geometries, 37, shape_constant_options());
  }
}

// pad.comp's group pass (rows of 1- and 2-byte elements with an innermost pad, source rows of whole
// 16-byte chunks): groups of the fewest whole destination rows that make whole 32-bit words, each
// in one piece or two (invocations), through a stage in shared memory. Corners per mode and width:
// groups of one, two and four rows (row bytes a multiple of 4, 2, or odd), of one piece and of two
// (even and odd word counts), the rank-5 bench rows, pads wider than a chunk, rows wholly in outer
// pads, a row count that is not a multiple of the group (a group with rows past the last), several
// workgroups with a last one partly used, rank 1 (one row). Each geometry is first held to the plan:
// the wrapper takes the group pass for it where its pipeline is built for the geometry (here always,
// ShapeConstants::Always). Then random geometries that take it.
TEST(PadGroupPass, Geometries) {
  for (const auto& target : split_targets()) {
    if (target.op != selftest::Op::Pad || byte_width(target.dtype) > 2 || !width_representative(target.dtype)) continue;
    const std::int64_t c = 16 / static_cast<std::int64_t>(byte_width(target.dtype));  // elements per chunk
    std::vector<Geometry> geometries{
        {{2, 3, 5, 6, 4 * c}, {0, 1, 2, 2, 2}, {1, 0, 2, 2, 2}},  // the rank-5 rows: 68 elements
        {{3, 4, c}, {1, 1, c / 4}, {0, 2, c / 4}},                // 24 bytes
        {{5, 3, c}, {0, 1, 1}, {2, 0, 1}},                        // 18 u8, 10 f16
        {{7, 2, c}, {1, 1, 0}, {1, 1, 1}},                        // 17 u8, 9 f16
        {{3, 5, 2 * c}, {1, 0, c + 1}, {0, 0, c + 3}},            // pads wider than a chunk
        {{3, 5, 2 * c}, {0, 1, 1}, {0, 1, 1}},                    // 21 rows, not a multiple of P
        {{9, 11, 13, c}, {1, 0, 2, 1}, {0, 1, 1, 1}},             // several workgroups
        {{4 * c}, {2}, {2}},                                      // one row
    };
    const auto width = byte_width(target.dtype);
    // The pass the wrapper takes for g, its pipelines built for the geometry (reflect pads cut to
    // dim - 1, as run_geometries does).
    auto planned = [&](const Geometry& g) {
      PadGeometry pg{target.mode, g.in, g.in, g.left, g.right};
      for (std::size_t a = 0; a < g.in.size(); ++a) {
        if (target.mode == PadMode::Reflect) {
          pg.left[a] = std::min(pg.left[a], g.in[a] - 1);
          pg.right[a] = std::min(pg.right[a], g.in[a] - 1);
        }
        pg.out[a] = g.in[a] + pg.left[a] + pg.right[a];
      }
      const auto cg = ops::coalesce(pg);
      return ops::plan_gather({static_cast<std::uint64_t>(numel(cg.out)), width,
                               static_cast<std::uint64_t>(cg.out.back()), static_cast<std::uint64_t>(cg.left.back()),
                               static_cast<std::uint64_t>(cg.right.back()), true, true, true})
          .pass;
    };
    for (const auto& g : geometries)
      EXPECT_EQ(planned(g), ops::GatherPass::Group) << target.kernel << " shape " << to_string(g.in);
    // Groups of two pieces of up to 36 words: u8 rows of 38 from 32 (two rows a group, 19 words;
    // with the outer pads 21 rows, an odd count) and of 70 from 64 (two rows, 35 words); f16 rows
    // of 22 from 16 (one row, 11 words) and of 38 from 32 (one row, 19 words).
    for (const auto& g : {Geometry{{3, 5, 2 * c}, {0, 1, 3}, {0, 1, 3}}, Geometry{{7, 4 * c}, {0, 3}, {0, 3}}}) {
      EXPECT_EQ(planned(g), ops::GatherPass::Group) << target.kernel << " shape " << to_string(g.in);
      geometries.push_back(g);
    }
    // Then random geometries that take the pass: ranks 1 to 4, source rows of 1 to 8 chunks, pads
    // from 0 to past a chunk.
    std::mt19937_64 rng(std::hash<std::string>{}(target.kernel) ^ 0x6B0u);
    auto uniform = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    for (int found = 0, tries = 0; found < 10 && tries < 1000; ++tries) {
      const int rank = static_cast<int>(uniform(1, 4));
      Geometry g;
      g.in.assign(rank, 1);
      g.left.assign(rank, 0);
      g.right.assign(rank, 0);
      g.in.back() = c * uniform(1, 8);
      for (int a = 0; a < rank - 1; ++a) {
        g.in[a] = uniform(1, 6);
        g.left[a] = uniform(0, 2);
        g.right[a] = uniform(0, 2);
      }
      g.left.back() = uniform(0, c + 2);
      g.right.back() = uniform(0, c + 2);
      const auto pass = planned(g);
      if (pass != ops::GatherPass::Group) continue;
      geometries.push_back(g);
      ++found;
    }
    EXPECT_GE(geometries.size(), 18u) << target.kernel << ": too few random geometries take the group pass";
    run_geometries(target, geometries, 41, shape_constant_options());
  }
}

// pad.comp's word pass (destinations under 1 MiB, rows of 16 to 511 bytes with an innermost pad,
// 1- to 4-byte elements): one invocation per 32-bit word of the destination, which finds its row's
// source and, where the word runs past the row's end, the next row's. With the wrappers' default
// choice (no always_split_passes), fixed corners per mode and width, each checked to take the pass:
// rows of exactly 16 bytes and of 511 or so, odd rows (words across row ends at every offset), rows
// wholly in an outer constant pad, a part word at the destination's end, rank 1, reflect pads of
// dim - 1, a left or a right pad alone. The portable builds run the same pass.
TEST(PadWordPass, CornerGeometries) {
  for (const auto& target : split_targets()) {
    if (target.op != selftest::Op::Pad || byte_width(target.dtype) > 4 || !width_representative(target.dtype)) continue;
    const std::int64_t width = static_cast<std::int64_t>(byte_width(target.dtype));
    const std::vector<Geometry> geometries = {
        {{5, 16 / width - 2}, {1, 1}, {0, 1}},
        {{3, 7, 511 / width - 4}, {0, 1, 2}, {1, 0, 2}},
        {{4, 5, 33 / width + 3}, {2, 1, 3}, {1, 2, 0}},
        {{6, 37 / width + 2}, {0, 0}, {0, 5}},
        {{40 / width + 9}, {4}, {0}},
        {{2, 3, 9, 19 / width + 5}, {1, 0, 1, 5}, {0, 2, 1, 5}},
    };
    for (const auto& g : geometries) {
      // The plan the wrapper makes for this geometry, as record_gather derives it.
      const selftest::Case c = geometry_case(target, g, 31);
      PadGeometry pg{target.mode, c.shape, c.shape, c.left, c.right};
      for (std::size_t a = 0; a < pg.out.size(); ++a) pg.out[a] += c.left[a] + c.right[a];
      const ops::GatherShape shape = ops::gather_shape(ops::coalesce(pg), byte_width(target.dtype), false);
      EXPECT_EQ(ops::plan_gather(shape).pass, ops::GatherPass::Word) << target.kernel << " " << to_string(g.in);
    }
    run_geometries(target, geometries, 31, default_options());
  }
}

INSTANTIATE_TEST_SUITE_P(PadFamily, SplitPasses, ::testing::ValuesIn(split_targets()), target_name);
INSTANTIATE_TEST_SUITE_P(PadFamily, DefaultPasses, ::testing::ValuesIn(split_targets(false)), target_name);

// The ops give pad.comp's kernels (forward pads, crops) their rank as specialization constant 1; a
// pipeline built without it reads the rank from the push constants (a context with runtime_rank
// builds them so). That path on the same random geometries, with the split passes: each mode and
// width once.
class RuntimeRank : public ::testing::TestWithParam<selftest::Target> {};

TEST_P(RuntimeRank, RandomGeometriesMatchTheReference) {
  ContextOptions o = split_options();
  o.runtime_rank = true;
  run_random_cases(context_for(GetParam(), o), GetParam());
}

std::vector<selftest::Target> runtime_rank_targets() {
  const std::pair<const char*, DType> picks[] = {
      {"pad_reflect_b1", DType::U8},
      {"pad_const_b2", DType::F16},
      {"pad_replicate_b4", DType::F32},
      {"pad_backward_const_b8", DType::I64},
  };
  std::vector<selftest::Target> out;
  for (const auto& t : split_targets(false))
    for (const auto& [kernel, dtype] : picks)
      if (t.kernel == kernel && t.dtype == dtype) out.push_back(t);
  return out;
}

INSTANTIATE_TEST_SUITE_P(PadFamily, RuntimeRank, ::testing::ValuesIn(runtime_rank_targets()), target_name);

TEST(RuntimeRankTargets, AllFound) { EXPECT_EQ(runtime_rank_targets().size(), 4u); }

// The passes of pad.comp and of the deterministic backward built for each geometry
// (ShapeConstants::Always, kernels/shape_constants.glsl), so every dim, pad and element count is a
// constant the driver folds in: the random geometries with the split passes, each pad.comp kernel
// with one dtype of its width, each deterministic backward.
class ShapeConstantPasses : public ::testing::TestWithParam<selftest::Target> {};

TEST_P(ShapeConstantPasses, RandomGeometriesMatchTheReference) {
  Context& ctx = context_for(GetParam(), shape_constant_options());
  const std::size_t built = ctx.runtime().pipelines_with_constants();
  run_random_cases(ctx, GetParam());
  EXPECT_GT(ctx.runtime().pipelines_with_constants(), built) << "no pipeline was built for a geometry";
}

std::vector<selftest::Target> shape_constant_targets() {
  std::vector<selftest::Target> out;
  for (const auto& t : split_targets(false)) {
    const bool gather = t.op == selftest::Op::Pad || t.mode == PadMode::Constant;  // pad.comp
    const bool det = t.kernel.find("_det_") != std::string::npos;
    if ((gather && width_representative(t.dtype)) || det) out.push_back(t);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(PadFamily, ShapeConstantPasses, ::testing::ValuesIn(shape_constant_targets()), target_name);

// Forward pads and crops of four widths in three and one modes, and the deterministic backwards of
// two modes and four dtypes.
TEST(ShapeConstantTargets, AllFound) { EXPECT_EQ(shape_constant_targets().size(), 16u + 8u); }

// The same kernels under ShapeConstants::Auto on small tensors, whose passes are built for their
// geometry once it is hot (ContextOptions::specialize_after, here 1): the op's plan is the one for
// the pipelines that read the geometry at run time, each pass then runs built for it. Each random
// geometry runs twice: the first run queues the background builds and runs without them, the
// second (after they are done) with them.
class HotGeometryPasses : public ::testing::TestWithParam<selftest::Target> {};

TEST_P(HotGeometryPasses, RandomGeometriesMatchTheReference) {
  ContextOptions o = default_options();
  o.specialize_after = 1;
  // A context per kernel, so that no kernel meets the budget of hot builds (kMaxHotPipelines).
  Context ctx(selftest::context_options(GetParam(), o));
  const std::uint64_t queued = ctx.runtime().background_builds();
  run_random_cases(ctx, GetParam(), 8, true);
  EXPECT_GT(ctx.runtime().background_builds(), queued) << "no geometry turned hot";
  EXPECT_EQ(ctx.runtime().background_build_failures(), std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(PadFamily, HotGeometryPasses, ::testing::ValuesIn(shape_constant_targets()), target_name);

}  // namespace
}  // namespace fvk::testing
