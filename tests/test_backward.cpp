// Reflect / replicate backward: no contribution lost under heavy contention, deterministic kernels
// bit-identical run to run, and the deterministic f16/bf16 sums at least as close to the exact sum as
// the atomic ones.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/float_bits.hpp"
#include "expect_error.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "gpu_fixture.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"
#include "reference/random_tensor.hpp"
#include "reference/reference.hpp"
#include "selftest/harness.hpp"

namespace fvk::testing {
namespace {

using selftest::element_as_double;
using ::testing::HasSubstr;

// grad_out of small integers: every partial sum is exact in every format, so any lost or doubled
// contribution shows as a wrong value, whatever the order of the adds.
HostTensor integer_grad(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  HostTensor t = HostTensor::zeros(dtype, shape);
  std::uniform_int_distribution<int> v(-2, 2);
  for (std::size_t i = 0; i < t.numel(); ++i) {
    const double x = v(rng);
    if (dtype == DType::F64)
      t.set<double>(i, x);
    else if (dtype == DType::F32)
      t.set<float>(i, static_cast<float>(x));
    else
      t.set<std::uint16_t>(
          i, static_cast<std::uint16_t>(detail::encode_float(x, dtype == DType::F16 ? detail::kF16 : detail::kBF16)));
  }
  return t;
}

// Elements of a 4 MiB grad_in of `dtype`: from that size the deterministic wrapper takes its passes
// for large tensors (src/ops/pad_backward.cpp, det_passes).
std::int64_t large_grad_in_elements(DType dtype) {
  return (std::int64_t{4} << 20) / static_cast<std::int64_t>(byte_width(dtype));
}

// The deterministic backward of a random grad_out (grad_in `in` padded by `spec`) on `ctx`, which
// should be a poisoned context (new tensors 0xA5, so a chunk no pass writes shows): bit-exact
// against the reference's sums in the kernel's order; a failure names the first wrong element.
void expect_det_matches_reference(Context& ctx, DType dtype, const Shape& in, const PadSpec& spec,
                                  std::mt19937_64& rng) {
  Shape out = in;
  for (std::size_t a = 0; a < out.size(); ++a) out[a] += spec.left[a] + spec.right[a];
  const HostTensor grad_out = ref::random_values(dtype, out, rng);
  const HostTensor got = ctx.download(pad_backward(ctx, ctx.upload(grad_out), spec));
  ASSERT_EQ(got.shape, in);
  const auto diff =
      selftest::first_difference(got, ref::pad_backward_sum(grad_out, infer_pad_backward(grad_out.shape, spec)));
  EXPECT_FALSE(diff.has_value()) << (spec.mode == PadMode::Reflect ? "reflect" : "replicate") << " grad_in "
                                 << to_string(in) << ": " << diff.value_or("");
}

// The atomic backward of `grad_out` (small integers, see integer_grad) against the exact sums: how
// many grad_in elements are wrong, and (first) the index of the first.
std::size_t atomic_wrong_elements(const HostTensor& grad_out, const PadSpec& spec, std::size_t& first) {
  Context& ctx = shared_context();
  const HostTensor got = ctx.download(pad_backward(ctx, ctx.upload(grad_out), spec, BackwardAlgorithm::Atomic));
  const HostTensor exact = ref::pad_backward_exact(grad_out, infer_pad_backward(grad_out.shape, spec));
  std::size_t wrong = 0;
  first = 0;
  for (std::size_t i = 0; i < exact.numel(); ++i)
    if (element_as_double(got, i) != exact.get<double>(i) && wrong++ == 0) first = i;
  return wrong;
}

class Backward : public GpuTest, public ::testing::WithParamInterface<DType> {};

TEST_P(Backward, AtomicContentionLosesNothing) {
  const DType dtype = GetParam();
  std::mt19937_64 rng(7);
  // Replicate with large pads on a 2x2 input: each corner slot receives (pad+1)^2 values. Values are
  // small integers and every partial sum, in any order, stays an integer the format holds exactly
  // (bf16 up to 256, f16 up to 2048): a lost or doubled contribution shows as a wrong value.
  const bool narrow = byte_width(dtype) == 2;
  const std::int64_t p = dtype == DType::BF16 ? 15 : dtype == DType::F16 ? 44 : 64;
  const PadSpec spec{PadMode::Replicate, {p, p}, {p, p}};
  const Shape grad_out_shape{2 + 2 * p, 2 + 2 * p};
  HostTensor grad_out = integer_grad(dtype, grad_out_shape, rng);
  if (narrow)  // values in {0, 1}: partial sums never exceed the count, (p+1)^2
    for (std::size_t i = 0; i < grad_out.numel(); ++i)
      if (element_as_double(grad_out, i) != 1.0) grad_out.set<std::uint16_t>(i, 0);
  const PadGeometry g = infer_pad_backward(grad_out_shape, spec);
  const HostTensor exact = ref::pad_backward_exact(grad_out, g);
  for (int rep = 0; rep < 3; ++rep) {
    const HostTensor got = ctx().download(pad_backward(ctx(), ctx().upload(grad_out), spec, BackwardAlgorithm::Atomic));
    for (std::size_t i = 0; i < got.numel(); ++i)
      ASSERT_EQ(element_as_double(got, i), exact.get<double>(i)) << "slot " << i << " rep " << rep;
  }
  // The deterministic gather gets the same exact sums, where the device runs sums this long (see
  // LongSumsRunOrAreRefusedOnDevicesThatEndLongLoops).
  const std::uint32_t limit = ctx().device_info().max_loop_iterations;
  if (limit > 0 && ops::det_backward_loop_iterations(g, dtype) > limit) return;
  const HostTensor det = ctx().download(pad_backward(ctx(), ctx().upload(grad_out), spec));
  for (std::size_t i = 0; i < det.numel(); ++i)
    ASSERT_EQ(element_as_double(det, i), exact.get<double>(i)) << "slot " << i;
}

TEST_P(Backward, AtomicContentionOnOneSlot) {
  // A 1-element input: every grad_out element lands in the one slot (8193 contributions of 1.0).
  const DType dtype = GetParam();
  const PadSpec spec{PadMode::Replicate, {4096}, {4096}};
  HostTensor grad_out = HostTensor::zeros(dtype, {8193});
  for (std::size_t i = 0; i < grad_out.numel(); ++i) {  // all ones
    if (dtype == DType::F64)
      grad_out.set<double>(i, 1.0);
    else if (dtype == DType::F32)
      grad_out.set<float>(i, 1.0f);
    else
      grad_out.set<std::uint16_t>(i, dtype == DType::F16 ? 0x3C00 : 0x3F80);
  }
  const HostTensor got = ctx().download(pad_backward(ctx(), ctx().upload(grad_out), spec, BackwardAlgorithm::Atomic));
  if (dtype == DType::F32 || dtype == DType::F64) {
    EXPECT_EQ(element_as_double(got, 0), 8193.0);
  } else {
    // Narrow formats saturate their integer range (f16 stops growing at 2048, bf16 at 256): the
    // atomic sum rounds on every add. What must hold: not below that stall point.
    EXPECT_GE(element_as_double(got, 0), dtype == DType::F16 ? 2048.0 : 256.0);
  }
}

TEST_P(Backward, DeterministicIsBitIdenticalAcrossRuns) {
  const DType dtype = GetParam();
  std::mt19937_64 rng(11);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate}) {
    const PadSpec spec{mode, {0, 3, 2}, {0, 3, 4}};
    const HostTensor grad_out = ref::random_values(dtype, {3, 37, 29}, rng);
    const Tensor dev = ctx().upload(grad_out);
    const HostTensor first = ctx().download(pad_backward(ctx(), dev, spec));
    for (int rep = 0; rep < 5; ++rep) {
      const HostTensor again = ctx().download(pad_backward(ctx(), dev, spec));
      ASSERT_EQ(first.data, again.data) << name(mode) << " rep " << rep;
    }
    // and equal to the reference that sums in the same order
    ASSERT_EQ(first.data, ref::pad_backward_sum(grad_out, infer_pad_backward(grad_out.shape, spec)).data);
  }
}

TEST_P(Backward, DeterministicKeepsTheBitsOfSingleContributors) {
  // grad_out all -0.0, with NaN payloads and finite values where grad_in has one contributor: those
  // come back bit for bit (the copy path and the summing path alike), and sums of -0.0 stay -0.0.
  const DType dtype = GetParam();
  const std::uint64_t nan_bits = dtype == DType::F64   ? 0x7FF4000000000001ull
                                 : dtype == DType::F32 ? 0x7FA00001ull
                                 : dtype == DType::F16 ? 0x7D01ull
                                                       : 0x7F81ull;  // signalling NaNs with payloads
  const std::uint64_t neg_zero = dtype == DType::F64 ? 1ull << 63 : dtype == DType::F32 ? 1ull << 31 : 0x8000;
  for (auto mode : {PadMode::Reflect, PadMode::Replicate}) {
    const PadSpec spec{mode, {1, 2}, {1, 2}};  // grad_in {6, 40}, grad_out {8, 44}
    HostTensor grad_out = HostTensor::zeros(dtype, {8, 44});
    const auto width = grad_out.elem_bytes();
    auto put = [&](std::size_t i, std::uint64_t bits) { std::memcpy(grad_out.data.data() + i * width, &bits, width); };
    for (std::size_t i = 0; i < grad_out.numel(); ++i) put(i, neg_zero);
    // Rows 3..4 of grad_out are rows 2..3 of grad_in (one contributor on axis 0 in both modes);
    // columns 5..38 are grad_in columns 3..36 (one contributor on axis 1). Under reflect, grad_in
    // column 1 sums grad_out columns 1 and 3.
    for (std::size_t c : {5u, 17u, 22u, 38u}) put(3 * 44 + c, nan_bits);
    put(4 * 44 + 9, nan_bits ^ 1);
    const Tensor dev = ctx().upload(grad_out);
    const HostTensor got = ctx().download(pad_backward(ctx(), dev, spec));
    const HostTensor want = ref::pad_backward_sum(grad_out, infer_pad_backward(grad_out.shape, spec));
    ASSERT_EQ(got.data, want.data) << name(mode);
    std::uint64_t bits = 0;
    std::memcpy(&bits, got.data.data() + (2 * 40 + 20) * width, width);
    EXPECT_EQ(bits, nan_bits) << name(mode);
    std::memcpy(&bits, got.data.data() + (5 * 40 + 1) * width, width);
    EXPECT_EQ(bits, neg_zero) << name(mode) << ": a sum of -0.0 terms";
  }
}

TEST_P(Backward, DeterministicTwoPassesMatchTheReference) {
  // 4 MiB of grad_in and more, rows of whole chunks up to 8 KiB, at most 5% of the rows with several
  // outer contributors: the wrapper runs the multi-row pass and the copy and edge passes as one
  // dispatch of interleaved workgroups (pass 10, reflect's mirrors from 16-byte windows, where they
  // lie in pads of a chunk or less; else pass 11). Rows of 128 elements (pads 3 and 5: pass 10 on
  // f16/bf16, pass 11 on f32/f64 reflect), of 40 chunks (rows across the blocks of copy workgroups;
  // reflect pads of a chunk on both sides: pass 10), of 16 chunks (a left pad of 9, wider than a
  // chunk: pass 11 on every dtype), and of two chunks (an edge workgroup for 512 rows and more,
  // several rounds of its invocations; f64 reflect: pass 11, its row is no longer than
  // left + right + chunk). New tensors start as 0xA5 bytes, so a chunk no pass writes shows.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(dtype));
  const std::int64_t elements = large_grad_in_elements(dtype);
  struct Geometry {
    std::int64_t mid, n;
    std::vector<std::int64_t> left, right;
  };
  const std::vector<Geometry> geometries{{128, 128, {0, 1, 3}, {0, 1, 5}},
                                         {64, 40 * chunk, {0, 1, chunk}, {0, 1, chunk}},
                                         {64, 16 * chunk, {0, 1, 9}, {0, 1, 2}},
                                         {64, 2 * chunk, {0, 0, 1}, {0, 1, 1}}};
  std::mt19937_64 rng(23);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate})
    for (const auto& g : geometries)
      expect_det_matches_reference(poisoned, dtype, {elements / (g.mid * g.n) + 1, g.mid, g.n}, {mode, g.left, g.right},
                                   rng);
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

// A grad_in shape and its pads, for the tests of one pass.
struct DetGeometry {
  Shape in;
  std::vector<std::int64_t> left, right;
};

// `g` behind a leading unpadded batch axis that brings grad_in of `dtype` to 1 MiB or more.
DetGeometry at_one_mib(const DetGeometry& g, DType dtype) {
  const std::int64_t bytes = numel(g.in) * static_cast<std::int64_t>(byte_width(dtype));
  DetGeometry b{{((std::int64_t{1} << 20) + bytes - 1) / bytes}, {0}, {0}};
  b.in.insert(b.in.end(), g.in.begin(), g.in.end());
  b.left.insert(b.left.end(), g.left.begin(), g.left.end());
  b.right.insert(b.right.end(), g.right.begin(), g.right.end());
  return b;
}

// expect_det_matches_reference for grad_in `in` padded by `spec`, after checking that the wrapper
// runs it as the element pass (`element`) or not.
void expect_det_pass_matches_reference(Context& ctx, DType dtype, const Shape& in, const PadSpec& spec,
                                       std::mt19937_64& rng, bool element) {
  Shape out = in;
  for (std::size_t a = 0; a < out.size(); ++a) out[a] += spec.left[a] + spec.right[a];
  ASSERT_EQ(ops::det_backward_takes_element_pass(infer_pad_backward(out, spec), dtype), element) << to_string(in);
  expect_det_matches_reference(ctx, dtype, in, spec, rng);
}

TEST_P(Backward, DeterministicRowPassGeometries) {
  // Tensors under 4 MiB whose rows are whole 16-byte chunks take the row pass (256 / R rows of R
  // chunks per workgroup, column order), from 1 MiB on where their contributor lists are short (the
  // element pass takes the smaller ones): each geometry below gets a leading batch axis that brings
  // grad_in to 1 MiB. Its corners: rows of one chunk (256 rows a workgroup) and of 256 (one row),
  // R = 3 (85 rows, one idle invocation), rows of one chunk holding both ends (elements 0 and n - 1,
  // both mirrors), and outer axes with up to 27 contributor combinations. New tensors start as 0xA5
  // bytes, so a chunk the pass skips shows.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(dtype));
  const std::int64_t edge = chunk - 1;  // the widest reflect pad of a one-chunk row
  const std::vector<DetGeometry> geometries{
      {{3, 5, chunk}, {1, 2, edge}, {2, 1, edge}},
      {{2, 3, 256 * chunk}, {1, 1, 7}, {0, 2, 9}},
      {{20, 9, 3 * chunk}, {0, 3, 2}, {1, 4, chunk + 1}},
      {{4, 5, 6, 2 * chunk}, {3, 4, 5, 1}, {3, 4, 5, 2}},
  };
  std::mt19937_64 rng(41);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate})
    for (const auto& g : geometries) {
      const DetGeometry b = at_one_mib(g, dtype);
      expect_det_pass_matches_reference(poisoned, dtype, b.in, {mode, b.left, b.right}, rng, false);
    }
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

TEST_P(Backward, DeterministicOnePassGeometries) {
  // Tensors from 1 MiB to 4 MiB whose rows are not whole 16-byte chunks take the one pass (a chunk
  // per invocation, chunks across row ends summed element by element); under 1 MiB such tensors
  // with short contributor lists take the element pass. Rows of 3 chunks and one element, and rows
  // shorter than a chunk, with outer pads. New tensors start as 0xA5 bytes.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(dtype));
  const std::vector<DetGeometry> geometries{
      {{5, 3 * chunk + 1}, {1, 2}, {2, 1}},
      {{3, 7}, {1, 3}, {2, 3}},
  };
  std::mt19937_64 rng(47);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate})
    for (const auto& g : geometries) {
      const DetGeometry b = at_one_mib(g, dtype);
      expect_det_pass_matches_reference(poisoned, dtype, b.in, {mode, b.left, b.right}, rng, false);
    }
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

TEST_P(Backward, DeterministicElementPassGeometries) {
  // Tensors under 1 MiB whose every coordinate has at most 4 contributors on each axis take the
  // element pass: an invocation per element, four terms loaded at a time; 2-byte elements stored in
  // pairs through shared memory. Its corners: odd element counts (a last word of one 2-byte
  // element) and counts of 256 and 257 (one workgroup, and one element past it); the 27 terms of a
  // reflect centre on three narrow axes (seven rounds of four, the last partial) and the 64 of a
  // replicate corner with pads of 3 on three axes; an innermost axis of one element (replicate: its
  // run holds both pads); rank 6 with pads on five axes (the odometer carrying across them); the
  // benchmarks' small set. New tensors start as 0xA5 bytes, so an element the pass skips shows.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  struct Geometry {
    PadMode mode;
    Shape in;
    std::vector<std::int64_t> left, right;
  };
  const auto R = PadMode::Reflect, P = PadMode::Replicate;
  const std::vector<Geometry> geometries{
      {R, {3, 5, 7}, {1, 2, 3}, {2, 1, 3}},
      {P, {3, 5, 7}, {1, 2, 3}, {2, 1, 3}},
      {R, {256}, {3}, {2}},
      {P, {257}, {1}, {3}},
      {R, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
      {P, {5, 6, 7}, {3, 3, 3}, {3, 3, 3}},
      {P, {9, 1}, {3, 2}, {0, 1}},
      {R, {2, 3, 2, 4, 3, 5}, {0, 1, 1, 0, 2, 1}, {1, 0, 1, 0, 1, 3}},
      {P, {2, 3, 2, 4, 3, 5}, {0, 1, 1, 0, 2, 1}, {1, 0, 1, 0, 1, 3}},
      {R, {8, 3, 32, 32}, {0, 0, 1, 1}, {0, 0, 1, 1}},
      {P, {8, 3, 32, 32}, {0, 0, 1, 1}, {0, 0, 1, 1}},
  };
  std::mt19937_64 rng(43);
  for (const auto& g : geometries)
    expect_det_pass_matches_reference(poisoned, dtype, g.in, {g.mode, g.left, g.right}, rng, true);
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

TEST_P(Backward, DeterministicTilePassGeometries) {
  // grad_in of 4 MiB and more where over 5% of the rows have several outer contributors and rows hold
  // a chunk or more takes the tile pass: copy chunks at once, the others queued in shared memory.
  // Rows of 61 elements (chunks across row ends, at the queue's back; reflect, and replicate on 4-
  // and 8-byte elements) take it whole. Rows of whole chunks leave the rows with several outer
  // combinations to the multi-row pass beside it: rows of one chunk, of 64 elements and of 130
  // chunks. Outer pads on two axes (rows with up to 9 outer combinations), workgroups of 512 chunks
  // crossing rows, and pads of 15 on an outer axis of 16 (reflect: its two intervals of
  // coordinates with several contributors overlap, so every row goes to the multi-row pass). New
  // tensors start as 0xA5 bytes, so a chunk no pass writes shows.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(dtype));
  const std::int64_t elements = large_grad_in_elements(dtype);
  struct Geometry {
    std::int64_t n;
    std::vector<std::int64_t> left, right;
  };
  const std::vector<Geometry> geometries{{61, {0, 2, 1, 3}, {0, 1, 2, 2}},
                                         {64, {0, 0, 3, 1}, {0, 2, 2, 1}},
                                         {chunk, {0, 2, 1, 1}, {0, 1, 2, 1}},
                                         {130 * chunk, {0, 0, 2, 3}, {0, 0, 1, 2}},
                                         {64, {0, 15, 0, 1}, {0, 15, 1, 1}}};
  std::mt19937_64 rng(43);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate})
    for (const auto& g : geometries)
      expect_det_matches_reference(poisoned, dtype, {elements / (16 * 16 * g.n) + 1, 16, 16, g.n},
                                   {mode, g.left, g.right}, rng);
  // 3% of the rows with several outer contributors, rows of 128 elements, replicate pads of 128 and
  // 130 on them (long runs, which the interleaved passes leave out): f32 takes the tile pass's
  // subgroup-queue build beside the multi-row pass, the other dtypes the split passes with the edge
  // pass for long runs.
  const PadSpec long_runs{PadMode::Replicate, {0, 1, 128}, {0, 2, 130}};
  expect_det_matches_reference(poisoned, dtype, {elements / (64 * 128) + 1, 64, 128}, long_runs, rng);
  // Rows of one chunk, the same 3% (passes 10 and 11 need two chunks): f32 takes the subgroup-queue
  // build in both modes, the other dtypes the tile pass beside the multi-row pass.
  for (auto mode : {PadMode::Reflect, PadMode::Replicate})
    expect_det_matches_reference(poisoned, dtype, {elements / (64 * chunk) + 1, 64, chunk},
                                 {mode, {0, 1, 1}, {0, 1, 1}}, rng);
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
  if (dtype != DType::F32) return;
  // f32's portable build (a device without subgroup operations): the interleaved passes and the tile
  // pass as above; with long runs its tile pass queues the sums in the workgroup.
  ContextOptions options;
  options.poison_new_tensors = true;
  options.disabled_features = {"subgroupBallot", "subgroupShuffle"};
  Context portable(options);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate}) {
    ASSERT_EQ(ops::fast_build_of(
                  ops::pad_backward_kernel(portable.device_info(), mode, dtype, BackwardAlgorithm::Deterministic)),
              ops::pad_backward_kernel(poisoned.device_info(), mode, dtype, BackwardAlgorithm::Deterministic));
    expect_det_matches_reference(portable, dtype, {elements / (64 * 128) + 1, 64, 128}, {mode, {0, 1, 2}, {0, 2, 1}},
                                 rng);
    expect_det_matches_reference(portable, dtype, {elements / (16 * 16 * 61) + 1, 16, 16, 61},
                                 {mode, {0, 2, 1, 3}, {0, 1, 2, 2}}, rng);
  }
  expect_det_matches_reference(portable, dtype, {elements / (64 * 128) + 1, 64, 128}, long_runs, rng);
  for (const auto& m : portable.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

// The row pass (rank 4, rows of up to 120 outer combinations), the tile pass beside the multi-row
// pass (rank 4, rows of whole chunks) and the interleaved passes (rank 3) of the deterministic
// kernel, in a context opened with `o`, against the reference, bit for bit. New tensors start as
// 0xA5 bytes.
void expect_det_passes_match_reference(ContextOptions o, DType dtype) {
  o.poison_new_tensors = true;
  Context ctx(o);
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(dtype));
  const std::int64_t elements = large_grad_in_elements(dtype);
  struct Geometry {
    Shape in;
    std::vector<std::int64_t> left, right;
  };
  // The first under 1 MiB (reflect: the element pass; replicate: the row pass), the second the same
  // at 1 MiB (the row pass in both modes), the others 4 MiB and more.
  const std::vector<Geometry> geometries{
      {{4, 5, 6, 2 * chunk}, {3, 4, 5, 1}, {3, 4, 5, 2}},
      {{(std::int64_t{1} << 20) / (240 * 16) + 1, 4, 5, 6, 2 * chunk}, {0, 3, 4, 5, 1}, {0, 3, 4, 5, 2}},
      {{elements / (16 * 16 * 64) + 1, 16, 16, 64}, {0, 2, 1, 1}, {0, 1, 2, 1}},
      {{elements / (128 * 128) + 1, 128, 128}, {0, 1, 3}, {0, 1, 5}},
  };
  std::mt19937_64 rng(59);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate})
    for (const auto& g : geometries) expect_det_matches_reference(ctx, dtype, g.in, {mode, g.left, g.right}, rng);
  for (const auto& m : ctx.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

// The wrapper gives the deterministic kernel's passes their rank as specialization constant 1, and
// a pass reads it from the push constants where its pipeline is built without it (a context with
// runtime_rank builds them so), on ranks over 4, and in the passes that keep the push constant
// (see pad_backward_det.comp).
TEST_P(Backward, DeterministicRuntimeRank) {
  ContextOptions o;
  o.runtime_rank = true;
  o.shape_constants = ShapeConstants::Never;
  expect_det_passes_match_reference(o, GetParam());
}

// The same passes built for each geometry (every pass but the multi-row one; shape_constant.cpp).
TEST_P(Backward, DeterministicShapeConstants) {
  ContextOptions o;
  o.shape_constants = ShapeConstants::Always;
  expect_det_passes_match_reference(o, GetParam());
}

TEST_P(Backward, DeterministicMultiRowPass) {
  // grad_in of 4 MiB and more with at most 5% of rows of several outer contributors is split; the
  // third pass numbers those rows directly and writes one chunk per invocation. Its corners: long
  // runs of such rows (an outer pad on axis 0 of [50, R, n]: R consecutive rows, 4% of all), rows
  // that are not whole chunks, both modes; replicate rows of 256 chunks with wide innermost pads
  // (long sums in every chunk at the rows' ends); and, beside the tile pass, a replicate outer axis
  // of one element with both pads (its two coordinates with several contributors are one, so every
  // row is counted once and goes to this pass). New tensors start as 0xA5 bytes, so a chunk the
  // pass skips shows.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(dtype));
  const std::int64_t elements = large_grad_in_elements(dtype);
  struct Case {
    PadMode mode;
    Shape in;
    std::vector<std::int64_t> left, right;
  };
  const std::int64_t short_row = elements / (50 * 300) + 1;
  const std::int64_t long_row = 256 * chunk;
  const std::vector<Case> cases{
      {PadMode::Reflect, {50, 300, short_row}, {1, 0, 3}, {1, 0, 2}},
      {PadMode::Replicate, {50, 300, short_row}, {1, 0, 3}, {1, 0, 2}},
      {PadMode::Replicate, {50, elements / (50 * long_row) + 1, long_row}, {1, 0, 20}, {1, 0, 20}},
      {PadMode::Replicate, {elements / (16 * 64) + 1, 1, 16, 64}, {0, 2, 0, 1}, {0, 1, 0, 1}},
  };
  std::mt19937_64 rng(53);
  for (const auto& c : cases) expect_det_matches_reference(poisoned, dtype, c.in, {c.mode, c.left, c.right}, rng);
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

TEST_P(Backward, DeterministicShortReplicateRuns) {
  // Replicate runs of up to four terms load without a branch (the loads past the run's end repeat
  // its last position), longer ones in rounds of eight and then one by one: innermost pads of 0 to
  // 5 on each side give runs of 1 to 6 terms at both row ends, with pads on an outer axis so that
  // the rows next to it sum each run once per outer combination. Under 1 MiB (the element pass for
  // runs of up to 4 terms, the row pass for longer ones), from 1 MiB to 4 MiB (the row pass) and
  // over: few rows next to the outer pads (the interleaved copy and edge passes, the multi-row pass
  // beside them) and many (the tile pass beside the multi-row pass). Each element against the
  // reference, bit for bit. New tensors start as 0xA5 bytes.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  const std::int64_t chunk = 16 / static_cast<std::int64_t>(byte_width(dtype));
  const std::int64_t large_rows = large_grad_in_elements(dtype) / (8 * chunk) + 1;
  std::mt19937_64 rng(61);
  for (const Shape& in : {Shape{6, 5, 4 * chunk}, Shape{(std::int64_t{1} << 20) / (20 * 16) + 1, 5, 4 * chunk},
                          Shape{2, large_rows / 2 + 1, 8 * chunk}, Shape{large_rows / 5 + 1, 5, 8 * chunk}})
    for (std::int64_t left = 0; left <= 5; ++left) {
      const std::int64_t right = 5 - left;
      expect_det_matches_reference(poisoned, dtype, in, {PadMode::Replicate, {0, 2, left}, {0, 1, right}}, rng);
    }
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

TEST_P(Backward, DeterministicLongReplicateRuns) {
  // grad_in of 4 MiB and more with few rows of several outer contributors is split; replicate pads
  // of 128 and more on the innermost axis take one of two edge passes. Up to 4096 edge chunks: one
  // workgroup per chunk, which loads a long run's terms into shared memory 1024 at a time for
  // invocation 0 to add (runs of 129, 331 and 200; chunks across a row end, n = 8190). More: the
  // build that sums 128 loads (64 for f64) at a time, then 32, 8 and 1 (runs of 131 and 141 on
  // 4100 rows). Each edge element summed in order.
  Context& poisoned = poisoned_context();
  const DType dtype = GetParam();
  const std::int64_t elems = large_grad_in_elements(dtype);
  struct Case {
    std::int64_t rows, n, left, right;
  };
  const std::vector<Case> cases{
      {elems / 8192, 8192, 128, 330},
      {elems / 8192, 8192, 199, 0},
      {elems / 8190 + 1, 8190, 131, 129},
      {4100, elems / 4100 + 1, 130, 140},
  };
  std::mt19937_64 rng(47);
  for (const auto& c : cases) {
    const PadSpec spec{PadMode::Replicate, {0, c.left}, {0, c.right}};
    const HostTensor grad_out = ref::random_values(dtype, {c.rows, c.n + c.left + c.right}, rng);
    const HostTensor got = poisoned.download(pad_backward(poisoned, poisoned.upload(grad_out), spec));
    ASSERT_EQ(got.shape, (Shape{c.rows, c.n}));
    EXPECT_EQ(got.data, ref::pad_backward_sum(grad_out, infer_pad_backward(grad_out.shape, spec)).data)
        << "rows " << c.rows << ", n " << c.n << ", pads " << c.left << ", " << c.right;
  }
  for (const auto& m : poisoned.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

// A grad_out of 1 MiB and more for the atomic backward's large passes: dtype, shape and pads.
struct AtomicCase {
  DType dtype;
  Shape grad_out;
  std::vector<std::int64_t> left, right;
};

// Each case in each mode, with integer gradients (every order of the adds gives the exact sum),
// against the exact sums.
void expect_atomic_exact(const std::vector<AtomicCase>& cases, std::initializer_list<PadMode> modes,
                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const auto& c : cases) {
    ASSERT_GE(numel(c.grad_out) * static_cast<std::int64_t>(byte_width(c.dtype)), std::int64_t{1} << 20);
    for (auto mode : modes) {
      std::size_t first = 0;
      EXPECT_EQ(atomic_wrong_elements(integer_grad(c.dtype, c.grad_out, rng), {mode, c.left, c.right}, first), 0u)
          << name(mode) << " " << name(c.dtype) << " grad_out " << to_string(c.grad_out) << ": first wrong element "
          << first;
    }
  }
  for (const auto& m : shared_context().validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

TEST(AtomicBackward, OuterPadRowsByWorkgroupsAddEveryElement) {
  // On grad_out of 1 MiB and more, rows of up to 65536 elements with an outer pad are added by
  // workgroups of G = min(32, 65536 / row) rows that list such rows and share their elements. Its
  // corners: runs of such rows longer than G ([8, 40, n] with an outer pad on axis 0: 40 rows in a
  // row), rows of 65536 (G = 1), 3000 (G = 21, workgroups that do not start on a multiple of 32
  // rows) and 13 elements (G = 32), outer pads on two axes, and f16 (two elements in one word, so
  // neighbouring adds contend).
  expect_atomic_exact(
      {
          {DType::F32, {8, 40, 3000}, {1, 0, 2}, {2, 0, 1}},  // G = 21, runs of 40 such rows
          {DType::F16, {8, 40, 3000}, {1, 0, 2}, {2, 0, 1}},  // neighbouring adds in one word
          {DType::F32, {9, 65536}, {2, 3}, {1, 2}},           // G = 1
          {DType::F32, {60, 350, 13}, {3, 2, 1}, {2, 3, 2}},  // G = 32, outer pads on two axes
          {DType::F64, {60, 350, 13}, {3, 2, 1}, {2, 3, 2}},
      },
      {PadMode::Reflect, PadMode::Replicate}, 59);
}

TEST(AtomicBackward, ReplicateInnerPadsAddEachInvocationsShareOnce) {
  // On grad_out of 1 MiB and more, replicate's innermost pads are added by max(ceil(pad / 256),
  // min(8, ceil(pad / 16))) invocations per side, each summing every such-th element of its side
  // and adding that sum once. Corners: pads of 1 to 16 (one invocation), 17 (two), 60 to 110 (4 to
  // 7), 129 to 2048 (8), 2049 (9), 5000 (20); no pad on the left, or on the right; n = 1 (both
  // sides on one element); rows with an outer pad (the other pass's, skipped here). On bf16 at most
  // 128 contributions per element keep every partial sum within the integers it holds (256), on
  // f16 at most 1024.
  expect_atomic_exact(
      {
          {DType::F32, {64, 9 + 2049 + 2048}, {0, 2049}, {0, 2048}},
          {DType::F64, {52, 100 + 5000 + 7}, {0, 5000}, {0, 7}},
          {DType::F32, {520, 200 + 9 + 300}, {0, 9}, {0, 300}},
          {DType::F32, {1024, 1 + 100 + 156}, {0, 100}, {0, 156}},
          {DType::F64, {4, 66, 1000 + 8}, {1, 0, 0}, {1, 0, 8}},
          {DType::F16, {2048, 150 + 100 + 9}, {0, 100}, {0, 9}},
          {DType::BF16, {4500, 1 + 8 + 110}, {0, 8}, {0, 110}},
          {DType::BF16, {3, 81, 2300 + 3 + 60}, {0, 1, 3}, {0, 0, 60}},
          {DType::F32, {512, 17 + 600}, {0, 17}, {0, 0}},          // two invocations, no right pad
          {DType::F64, {256, 129 + 400 + 16}, {0, 129}, {0, 16}},  // 8 invocations; one for 16
      },
      {PadMode::Replicate}, 61);
}

TEST(AtomicBackward, LongRowsWithAnOuterPadAddEveryElement) {
  // On grad_out of 1 MiB and more the atomic backward adds the rows with an outer pad in a pass of
  // several invocations per row. With rows of 2.2 million elements, 32 invocations per row each ran
  // ~140k loop turns (one per compare-and-swap at least) and lavapipe, which ends every invocation
  // after 65535, silently dropped the rest of the row; each invocation now adds at most 256. Integer
  // gradients: every order of the adds gives the exact sum.
  std::mt19937_64 rng(53);
  for (auto mode : {PadMode::Reflect, PadMode::Replicate}) {
    std::size_t first = 0;
    EXPECT_EQ(atomic_wrong_elements(integer_grad(DType::F32, {3, 2200000}, rng), {mode, {1, 0}, {0, 0}}, first), 0u)
        << name(mode) << ": first wrong element " << first;
  }
  for (const auto& m : shared_context().validation_messages()) ADD_FAILURE() << "validation layer: " << m;
}

TEST_P(Backward, NarrowInputGetsBothReflections) {
  // n = 2 with reflect pads (1, 1): input element 0 also receives the right reflection and element 1
  // the left one; nothing may be lost.
  const DType dtype = GetParam();
  std::mt19937_64 rng(5);
  const HostTensor grad_out = integer_grad(dtype, {4}, rng);
  const PadSpec spec{PadMode::Reflect, {1}, {1}};
  const PadGeometry g = infer_pad_backward({4}, spec);
  const HostTensor exact = ref::pad_backward_exact(grad_out, g);
  // out = [x1, x0, x1, x0] for in = [x0, x1]: grad_in[0] = g1 + g3, grad_in[1] = g0 + g2.
  EXPECT_EQ(exact.get<double>(0), element_as_double(grad_out, 1) + element_as_double(grad_out, 3));
  EXPECT_EQ(exact.get<double>(1), element_as_double(grad_out, 0) + element_as_double(grad_out, 2));
  for (auto algorithm : {BackwardAlgorithm::Deterministic, BackwardAlgorithm::Atomic}) {
    const HostTensor got = ctx().download(pad_backward(ctx(), ctx().upload(grad_out), spec, algorithm));
    EXPECT_EQ(element_as_double(got, 0), exact.get<double>(0));
    EXPECT_EQ(element_as_double(got, 1), exact.get<double>(1));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Backward, ::testing::Values(DType::F32, DType::F64, DType::F16, DType::BF16),
                         [](const auto& info) { return std::string(name(info.param)); });

TEST_F(GpuTest, DeterministicSumsRoundInEveryRange) {
  // The f16 / bf16 / f32 sums are carried in f32 and the 16-bit ones rounded once, by the kernel's
  // own code (kernels/float_bits.glsl), not the driver's conversion. grad_out drawn from the bit
  // patterns at the edges of each range: signed zeros, the smallest and largest subnormals, the
  // smallest normal, 1 and its next value, half an ulp of 1 (ties to even), the largest finite
  // value (whose sums overflow to infinity) and +infinity. No sum may reach NaN, whose sign and
  // payload are the device's own: so no -infinity, and the largest negative value only for f16,
  // whose sums of it stay finite in f32 (for bf16 and f32 two of them make -infinity, and a later
  // +infinity NaN). Reflect and replicate sums of up to 12 terms must match the reference bit for
  // bit: with f32 subnormals kept, or flushed to signed zeros on a device that flushes them (the
  // contract leaves that to the device). f16 sums never hold an f32 subnormal (every one is a
  // multiple of 2^-24), so for them the two agree.
  struct Format {
    DType dtype;
    std::vector<std::uint32_t> bits;
  };
  const std::vector<Format> formats{
      {DType::F16,
       {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x3C00, 0x3C01, 0xBC00, 0x1000, 0x7BFF, 0xFBFF,
        0x7C00}},
      {DType::BF16,
       {0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x807F, 0x0080, 0x3F80, 0x3F81, 0xBF80, 0x3B80, 0x7F7F, 0x7F80}},
      {DType::F32,
       {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x3F800000, 0x3F800001,
        0xBF800000, 0x33800000, 0x7F7FFFFF, 0x7F800000}},
  };
  std::mt19937_64 rng(61);
  for (const auto& f : formats)
    for (auto mode : {PadMode::Reflect, PadMode::Replicate}) {
      const PadSpec spec{mode, {1, 2}, {2, 3}};
      HostTensor grad_out = HostTensor::zeros(f.dtype, {40, 13});
      std::uniform_int_distribution<std::size_t> pick(0, f.bits.size() - 1);
      for (std::size_t i = 0; i < grad_out.numel(); ++i) {  // the low bytes: little-endian
        const std::uint32_t bits = f.bits[pick(rng)];
        std::memcpy(grad_out.data.data() + i * grad_out.elem_bytes(), &bits, grad_out.elem_bytes());
      }
      const PadGeometry g = infer_pad_backward(grad_out.shape, spec);
      const HostTensor got = ctx().download(pad_backward(ctx(), ctx().upload(grad_out), spec));
      const auto kept = ref::pad_backward_sum(grad_out, g, ref::Subnormals::Keep).data;
      const auto flushed = ref::pad_backward_sum(grad_out, g, ref::Subnormals::Flush).data;
      if (f.dtype == DType::F16) {
        EXPECT_EQ(kept, flushed) << "an f16 sum held an f32 subnormal";
      } else {
        EXPECT_NE(kept, flushed) << name(f.dtype) << ": the draw should hold sums that differ when flushed";
      }
      EXPECT_TRUE(got.data == kept || got.data == flushed)
          << name(f.dtype) << (mode == PadMode::Reflect ? " reflect" : " replicate")
          << ": neither the reference with f32 subnormals kept nor the one with them flushed";
    }
}

TEST_F(GpuTest, F16SumsLandOnEverySubnormalAndTheFirstNormals) {
  // Every f16 magnitude k * 2^-24 for k < 2048 (all 1023 subnormals, zero, and the normals of the
  // first binade, 2^-14 <= |x| < 2^-13, whose step is 2^-24 too) reached as the exact sum of two f16
  // terms, each sign: the sum is representable, so both backward kernels must give its bits
  // exactly, k or 0x8000 | k, whatever their order of adds (but -0.0: the atomic kernel adds onto
  // a +0.0 fill, and +0.0 + -0.0 is +0.0). These sums lie where the two ranges of the f32 -> f16
  // rounding (a float add below 2^-14, integer rounding from there) meet. Reflect with one left pad
  // on the last axis: grad_in[r][1] = grad_out[r][0] + grad_out[r][2].
  constexpr std::uint16_t kCount = 2048;
  HostTensor grad_out = HostTensor::zeros(DType::F16, {2 * kCount, 3});
  const auto put = [&](std::size_t i, std::uint16_t bits) { std::memcpy(grad_out.data.data() + 2 * i, &bits, 2); };
  for (std::uint16_t sign : {std::uint16_t{0}, std::uint16_t{0x8000}})
    for (std::uint16_t k = 0; k < kCount; ++k) {
      const std::size_t r = (sign != 0 ? kCount : 0) + k;
      // Two terms of the same sign, k/2 and k - k/2 steps of 2^-24 (each at most 2^-14).
      put(3 * r + 0, static_cast<std::uint16_t>(sign | (k / 2)));
      put(3 * r + 2, static_cast<std::uint16_t>(sign | (k - k / 2)));
    }
  const PadSpec spec{PadMode::Reflect, {0, 1}, {0, 0}};
  const Tensor dev = ctx().upload(grad_out);
  for (auto algorithm : {BackwardAlgorithm::Deterministic, BackwardAlgorithm::Atomic}) {
    const HostTensor got = ctx().download(pad_backward(ctx(), dev, spec, algorithm));
    ASSERT_EQ(got.shape, (Shape{2 * kCount, 2}));
    int wrong = 0;
    for (std::uint16_t sign : {std::uint16_t{0}, std::uint16_t{0x8000}})
      for (std::uint16_t k = 0; k < kCount; ++k) {
        const std::size_t r = (sign != 0 ? kCount : 0) + k;
        std::uint16_t bits = 0;
        std::memcpy(&bits, got.data.data() + 2 * (2 * r + 1), 2);
        const bool atomic_zero = algorithm == BackwardAlgorithm::Atomic && k == 0;
        const std::uint16_t want = atomic_zero ? std::uint16_t{0} : static_cast<std::uint16_t>(sign | k);
        if (bits != want && wrong++ < 5)
          ADD_FAILURE() << (algorithm == BackwardAlgorithm::Atomic ? "atomic" : "deterministic") << ": sum of "
                        << (sign | (k / 2)) << " and " << (sign | (k - k / 2)) << " gave " << bits << ", not " << want;
      }
    EXPECT_EQ(wrong, 0);
  }
}

// Accuracy of f16/bf16 backward against the exact (f64) sum: the deterministic kernel rounds once,
// the atomic one on every add. Prints the figures the issue note records.
TEST_F(GpuTest, NarrowDeterministicIsCloserToExactThanAtomic) {
  for (auto dtype : {DType::F16, DType::BF16}) {
    std::mt19937_64 rng(21);
    const PadSpec spec{PadMode::Replicate, {0, 24}, {0, 24}};
    const Shape shape{64, 64 + 48};
    const HostTensor grad_out = ref::random_values(dtype, shape, rng);
    const PadGeometry g = infer_pad_backward(shape, spec);
    const HostTensor exact = ref::pad_backward_exact(grad_out, g);
    const Tensor dev = ctx().upload(grad_out);
    const HostTensor det = ctx().download(pad_backward(ctx(), dev, spec, BackwardAlgorithm::Deterministic));
    const HostTensor atom = ctx().download(pad_backward(ctx(), dev, spec, BackwardAlgorithm::Atomic));
    double det_err = 0, atom_err = 0, det_max = 0, atom_max = 0;
    for (std::size_t i = 0; i < det.numel(); ++i) {
      const double e = exact.get<double>(i);
      const double d = std::fabs(element_as_double(det, i) - e), a = std::fabs(element_as_double(atom, i) - e);
      det_err += d;
      atom_err += a;
      det_max = std::max(det_max, d);
      atom_max = std::max(atom_max, a);
    }
    std::printf(
        "[accuracy] %s replicate pads 24 (25 contributions at edges): mean |err| det %.3g atomic %.3g; max det %.3g "
        "atomic %.3g\n",
        std::string(name(dtype)).c_str(), det_err / det.numel(), atom_err / det.numel(), det_max, atom_max);
    EXPECT_LE(det_err, atom_err) << name(dtype);
    EXPECT_LE(det_max, atom_max) << name(dtype);
  }
}

TEST_F(GpuTest, LongSumsRunOrAreRefusedOnDevicesThatEndLongLoops) {
  // Replicate pads on two outer axes: every element of the grad_in row sums (pad + 1)^2 terms, one
  // loop iteration each in the deterministic kernel. Lavapipe ends an invocation's loops after
  // 65535 iterations, silently: there the wrapper refuses what may need more, and runs the rest.
  std::mt19937_64 rng(31);
  const std::uint32_t limit = ctx().device_info().max_loop_iterations;
  for (const std::int64_t pad : {20, 100}) {  // ~17k and ~390k loop iterations by the wrapper's estimate
    const PadSpec spec{PadMode::Replicate, {0, 0, 0}, {pad, pad, 0}};
    const HostTensor grad_out = integer_grad(DType::F32, {pad + 1, pad + 1, 8}, rng);
    const PadGeometry g = infer_pad_backward(grad_out.shape, spec);
    const Tensor dev = ctx().upload(grad_out);
    // Small integers: every sum is exact in f32, whatever the order.
    const HostTensor exact = ref::pad_backward_exact(grad_out, g);
    const HostTensor atom = ctx().download(pad_backward(ctx(), dev, spec, BackwardAlgorithm::Atomic));
    for (std::size_t i = 0; i < atom.numel(); ++i) ASSERT_EQ(atom.get<float>(i), exact.get<double>(i)) << i;
    if (limit > 0 && pad == 100) {
      const auto before = ctx().dispatch_count();
      // A sum longer than the device runs is refused, naming the limit and the way around it.
      const auto message = expect_error(
          ErrorCode::DeviceLimit, [&] { (void)pad_backward(ctx(), dev, spec, BackwardAlgorithm::Deterministic); });
      EXPECT_THAT(message, HasSubstr(std::to_string(limit)));
      EXPECT_THAT(message, HasSubstr("Atomic"));
      EXPECT_EQ(ctx().dispatch_count(), before) << "a refused op dispatched a kernel";
      continue;
    }
    const HostTensor det = ctx().download(pad_backward(ctx(), dev, spec, BackwardAlgorithm::Deterministic));
    EXPECT_EQ(det.data, ref::pad_backward_sum(grad_out, g).data) << "pad " << pad;
  }
  // Short sums on long rows run everywhere: a replicate pad of 1 on an outer axis, rows of 65536
  // after coalescing (an earlier estimate counted the multi-row pass's chunks here and refused it).
  const PadSpec depth{PadMode::Replicate, {0, 1, 0, 0}, {0, 1, 0, 0}};
  const HostTensor volume = integer_grad(DType::F32, {1, 8, 256, 256}, rng);
  const HostTensor det = ctx().download(pad_backward(ctx(), ctx().upload(volume), depth));
  EXPECT_EQ(det.data, ref::pad_backward_sum(volume, infer_pad_backward(volume.shape, depth)).data);
}

// The element pass sums each element's terms in one loop of four terms an iteration: on a device
// that ends long loops (lavapipe) the wrapper lets its longest sums through, and they come out bit
// for bit. Pads of 3 on every axis of dims of 2: every element sums 4^rank replicate terms, up to
// 65,536 at rank 8 (an earlier estimate, per chunk, refused all of these from rank 5 up).
TEST_F(GpuTest, ElementPassSumsRunWholeWhereLoopsEnd) {
  Context& ctx = poisoned_context();
  std::mt19937_64 rng(43);
  for (const DType dtype : {DType::F32, DType::F16, DType::F64}) {
    if (dtype == DType::F64 && !ctx.device_info().shader_float64) continue;
    for (const int rank : {5, 7, 8}) {
      const Shape in(static_cast<std::size_t>(rank), 2);
      const PadSpec spec{PadMode::Replicate, std::vector<std::int64_t>(rank, 3), std::vector<std::int64_t>(rank, 3)};
      const PadGeometry g = infer_pad(in, spec);
      if (numel(g.out) * byte_width(dtype) > ctx.device_info().max_storage_buffer_range) continue;  // f64 rank 8
      ASSERT_TRUE(ops::det_backward_takes_element_pass(g, dtype)) << rank;
      const std::uint64_t need = ops::det_backward_loop_iterations(g, dtype);
      EXPECT_LE(need, 64u + 65536u / 4) << name(dtype) << " rank " << rank;
      const HostTensor grad_out = ref::random_values(dtype, g.out, rng);
      const HostTensor got = ctx.download(pad_backward(ctx, ctx.upload(grad_out), spec));
      EXPECT_EQ(got.data, ref::pad_backward_sum(grad_out, infer_pad_backward(grad_out.shape, spec)).data)
          << name(dtype) << " rank " << rank;
    }
  }
  EXPECT_TRUE(ctx.validation_messages().empty());
}

TEST_F(GpuTest, SumsTheWrapperLetsThroughNearTheLoopLimitAreExact) {
  // The wrapper's loop estimate must be an upper bound: on a device that ends long loops, what it
  // lets through just under the limit must come out bit for bit. Random geometries whose estimate
  // lies in [limit / 2, limit] (65535 where the device has no limit), innermost dims from 1 (every
  // element a row end) up, all four dtypes; and four geometries an earlier estimate let through on
  // lavapipe although they ran past its limit (now refused there).
  const std::uint32_t device_limit = ctx().device_info().max_loop_iterations;
  const std::uint64_t limit = device_limit > 0 ? device_limit : 65535;
  std::mt19937_64 rng(41);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  struct Geometry {
    DType dtype;
    PadSpec spec;
    Shape grad_out;
  };
  std::vector<Geometry> cases = {
      {DType::F16, {PadMode::Replicate, {0, 1, 3000}, {0, 0, 3000}}, {8, 2, 6001}},
      {DType::BF16, {PadMode::Replicate, {0, 1, 3000}, {0, 0, 3000}}, {8, 2, 6001}},
      {DType::F16, {PadMode::Replicate, {0, 1, 2200}, {0, 0, 2200}}, {8, 2, 4401}},
      {DType::F16, {PadMode::Replicate, {0, 1, 5000}, {0, 0, 0}}, {8, 2, 5001}},
  };
  const DType dtypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64};
  for (int tries = 0; tries < 200000 && cases.size() < 4 + 12; ++tries) {
    const auto rank = static_cast<std::size_t>(uniform(2, 4));
    const PadMode mode = uniform(0, 3) == 0 ? PadMode::Reflect : PadMode::Replicate;
    const DType dtype = dtypes[uniform(0, 3)];
    if (dtype == DType::F64 && !ctx().device_info().shader_float64) continue;
    Shape in(rank);
    std::vector<std::int64_t> left(rank), right(rank);
    for (std::size_t a = 0; a < rank; ++a) {
      const bool inner = a + 1 == rank;
      in[a] = inner ? (uniform(0, 1) ? uniform(1, 3) : uniform(1, 300)) : uniform(1, 4);
      const std::int64_t cap = mode == PadMode::Reflect ? in[a] - 1 : inner ? 3000 : 40;
      left[a] = std::min(cap, uniform(0, inner ? 3000 : 40));
      right[a] = std::min(cap, uniform(0, inner ? 3000 : 40));
    }
    const PadSpec spec{mode, left, right};
    Shape out = in;
    std::int64_t n_out = 1;
    for (std::size_t a = 0; a < rank; ++a) n_out *= (out[a] += left[a] + right[a]);
    if (n_out > 2000000) continue;
    const std::uint64_t need = ops::det_backward_loop_iterations(infer_pad_backward(out, spec), dtype);
    if (need < limit / 2 || need > limit) continue;
    cases.push_back({dtype, spec, out});
  }
  ASSERT_EQ(cases.size(), 16u) << "not enough geometries near the limit";
  for (const auto& c : cases) {
    const PadGeometry g = infer_pad_backward(c.grad_out, c.spec);
    const HostTensor grad_out = ref::random_values(c.dtype, c.grad_out, rng);
    const std::string what = fmt::format("{} {} grad_out {} (estimate {})", name(c.dtype),
                                         c.spec.mode == PadMode::Reflect ? "reflect" : "replicate",
                                         to_string(c.grad_out), ops::det_backward_loop_iterations(g, c.dtype));
    if (device_limit > 0 && ops::det_backward_loop_iterations(g, c.dtype) > device_limit) {
      EXPECT_THROW((void)pad_backward(ctx(), ctx().upload(grad_out), c.spec), Error) << what;
      continue;
    }
    const HostTensor got = ctx().download(pad_backward(ctx(), ctx().upload(grad_out), c.spec));
    EXPECT_EQ(got.data, ref::pad_backward_sum(grad_out, g).data) << what;
  }
}

}  // namespace
}  // namespace fvk::testing
