// The CPU reference against small cases worked out by hand.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "expect_error.hpp"
#include "fvk/error.hpp"
#include "fvk/pad_spec.hpp"
#include "reference/reference.hpp"

namespace fvk {
namespace {

using fvk::testing::expect_error;

template <typename T>
HostTensor make(DType dtype, Shape shape, const std::vector<T>& values) {
  HostTensor t = HostTensor::zeros(dtype, std::move(shape));
  EXPECT_EQ(t.numel(), values.size());
  EXPECT_EQ(sizeof(T), t.elem_bytes());
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

template <typename T>
std::vector<T> values(const HostTensor& t) {
  EXPECT_EQ(sizeof(T), t.elem_bytes());
  std::vector<T> v(t.numel());
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

PadGeometry forward(const Shape& in, PadMode mode, std::vector<std::int64_t> left, std::vector<std::int64_t> right) {
  return infer_pad(in, PadSpec{mode, std::move(left), std::move(right)});
}
PadGeometry backward(const Shape& grad_out, PadMode mode, std::vector<std::int64_t> left,
                     std::vector<std::int64_t> right) {
  return infer_pad_backward(grad_out, PadSpec{mode, std::move(left), std::move(right)});
}

// ---- forward ----

TEST(ReferencePad, Reflect1D) {
  const auto in = make<std::int32_t>(DType::I32, {3}, {1, 2, 3});
  const auto out = ref::pad(in, forward({3}, PadMode::Reflect, {2}, {2}), 0);
  EXPECT_EQ(out.shape, (Shape{7}));
  EXPECT_EQ(values<std::int32_t>(out), (std::vector<std::int32_t>{3, 2, 1, 2, 3, 2, 1}));
}

TEST(ReferencePad, Replicate1D) {
  const auto in = make<std::int32_t>(DType::I32, {3}, {1, 2, 3});
  const auto out = ref::pad(in, forward({3}, PadMode::Replicate, {2}, {1}), 0);
  EXPECT_EQ(values<std::int32_t>(out), (std::vector<std::int32_t>{1, 1, 1, 2, 3, 3}));
}

TEST(ReferencePad, ConstantEveryWidth) {
  const auto u8 = ref::pad(make<std::uint8_t>(DType::U8, {3}, {1, 2, 3}), forward({3}, PadMode::Constant, {1}, {2}), 9);
  EXPECT_EQ(values<std::uint8_t>(u8), (std::vector<std::uint8_t>{9, 1, 2, 3, 9, 9}));

  // f16 -1.5 is 0xBE00; bytes little-endian.
  const auto f16 = ref::pad(make<std::uint16_t>(DType::F16, {2}, {0x3C00, 0x4000}),
                            forward({2}, PadMode::Constant, {1}, {1}), 0xBE00);
  EXPECT_EQ(values<std::uint16_t>(f16), (std::vector<std::uint16_t>{0xBE00, 0x3C00, 0x4000, 0xBE00}));

  const auto f32 =
      ref::pad(make<float>(DType::F32, {1}, {2.5f}), forward({1}, PadMode::Constant, {0}, {1}), 0xBF800000);
  EXPECT_EQ(values<float>(f32), (std::vector<float>{2.5f, -1.0f}));

  const auto i64 = ref::pad(make<std::int64_t>(DType::I64, {2}, {-5, 6}), forward({2}, PadMode::Constant, {2}, {0}),
                            static_cast<std::uint64_t>(std::int64_t{-7}));
  EXPECT_EQ(values<std::int64_t>(i64), (std::vector<std::int64_t>{-7, -7, -5, 6}));
}

TEST(ReferencePad, FillBitsAboveWidthAreRejected) {
  const auto in = make<std::uint8_t>(DType::U8, {1}, {1});
  expect_error(ErrorCode::InvalidArgument, [&] { ref::pad(in, forward({1}, PadMode::Constant, {1}, {0}), 0x100); });
}

TEST(ReferencePad, Constant2D) {
  const auto in = make<std::int16_t>(DType::I16, {2, 2}, {1, 2, 3, 4});
  const auto out = ref::pad(in, forward({2, 2}, PadMode::Constant, {1, 0}, {0, 1}), 0);
  EXPECT_EQ(out.shape, (Shape{3, 3}));
  EXPECT_EQ(values<std::int16_t>(out), (std::vector<std::int16_t>{0, 0, 0, 1, 2, 0, 3, 4, 0}));
}

TEST(ReferencePad, Reflect2D) {
  const auto in = make<std::int32_t>(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const auto out = ref::pad(in, forward({2, 3}, PadMode::Reflect, {1, 1}, {1, 1}), 0);
  EXPECT_EQ(out.shape, (Shape{4, 5}));
  EXPECT_EQ(values<std::int32_t>(out), (std::vector<std::int32_t>{5, 4, 5, 6, 5,  //
                                                                  2, 1, 2, 3, 2,  //
                                                                  5, 4, 5, 6, 5,  //
                                                                  2, 1, 2, 3, 2}));
}

TEST(ReferencePad, Replicate2D) {
  const auto in = make<std::int32_t>(DType::I32, {2, 2}, {1, 2, 3, 4});
  const auto out = ref::pad(in, forward({2, 2}, PadMode::Replicate, {0, 1}, {1, 0}), 0);
  EXPECT_EQ(out.shape, (Shape{3, 3}));
  EXPECT_EQ(values<std::int32_t>(out), (std::vector<std::int32_t>{1, 1, 2, 3, 3, 4, 3, 3, 4}));
}

TEST(ReferencePad, EmptyDims) {
  // A constant pad of an empty dim is all fill.
  const auto all_fill = ref::pad(HostTensor::zeros(DType::I32, {0}), forward({0}, PadMode::Constant, {1}, {1}), 7);
  EXPECT_EQ(values<std::int32_t>(all_fill), (std::vector<std::int32_t>{7, 7}));
  // An empty output stays empty in every mode.
  for (auto mode : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate}) {
    const auto out = ref::pad(HostTensor::zeros(DType::F32, {2, 0}), forward({2, 0}, mode, {1, 0}, {0, 0}), 0);
    EXPECT_EQ(out.shape, (Shape{3, 0}));
    EXPECT_TRUE(out.data.empty());
  }
}

TEST(ReferencePad, Rank8Replicate) {
  const Shape in_shape{2, 1, 1, 1, 1, 1, 1, 2};
  const auto in = make<std::uint8_t>(DType::U8, in_shape, {1, 2, 3, 4});
  const auto out =
      ref::pad(in, forward(in_shape, PadMode::Replicate, {1, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 1}), 0);
  EXPECT_EQ(out.shape, (Shape{3, 1, 1, 1, 1, 1, 1, 3}));
  EXPECT_EQ(values<std::uint8_t>(out), (std::vector<std::uint8_t>{1, 2, 2, 1, 2, 2, 3, 4, 4}));
}

TEST(ReferencePad, GeometryMustMatchInput) {
  const auto in = make<std::int32_t>(DType::I32, {3}, {1, 2, 3});
  expect_error(ErrorCode::ShapeMismatch, [&] { ref::pad(in, forward({4}, PadMode::Constant, {1}, {1}), 0); });
  auto g = forward({3}, PadMode::Reflect, {1}, {1});
  g.left[0] = 3;  // a geometry that skipped infer_pad: reflect pad beyond dim - 1
  g.out[0] = 7;
  expect_error(ErrorCode::ReflectPadTooLarge, [&] { ref::pad(in, g, 0); });
}

// ---- backward ----

TEST(ReferenceBackward, ConstIsASlice) {
  // grad_out 3x4, pads rows (1,0), cols (0,2): grad_in is rows 1..2, cols 0..1.
  const auto grad_out = make<std::int32_t>(DType::I32, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const auto grad_in = ref::pad_backward_const(grad_out, backward({3, 4}, PadMode::Constant, {1, 0}, {0, 2}));
  EXPECT_EQ(grad_in.shape, (Shape{2, 2}));
  EXPECT_EQ(values<std::int32_t>(grad_in), (std::vector<std::int32_t>{4, 5, 8, 9}));
}

TEST(ReferenceBackward, Reflect1D) {
  // n=4, pads (2,2): output coord o reads input 2,1,0,1,2,3,2,1.
  const auto grad_out = make<float>(DType::F32, {8}, {1, 2, 4, 8, 16, 32, 64, 128});
  const auto grad_in = ref::pad_backward_sum(grad_out, backward({8}, PadMode::Reflect, {2}, {2}));
  EXPECT_EQ(grad_in.shape, (Shape{4}));
  EXPECT_EQ(values<float>(grad_in), (std::vector<float>{4, 2 + 8 + 128, 1 + 16 + 64, 32}));
}

TEST(ReferenceBackward, Replicate1D) {
  // n=3, pads (2,1): output coord o reads input 0,0,0,1,2,2.
  const auto grad_out = make<double>(DType::F64, {6}, {1, 2, 4, 8, 16, 32});
  const auto grad_in = ref::pad_backward_sum(grad_out, backward({6}, PadMode::Replicate, {2}, {1}));
  EXPECT_EQ(values<double>(grad_in), (std::vector<double>{7, 8, 48}));
}

TEST(ReferenceBackward, NarrowReflectGetsBothMirrors) {
  // n=2, pads (1,1): output coord o reads input 1,0,1,0. Input 0 receives the direct o=1 and the
  // right mirror o=3; input 1 the left mirror o=0 and the direct o=2.
  const auto grad_out = make<float>(DType::F32, {4}, {1, 2, 4, 8});
  const auto grad_in = ref::pad_backward_sum(grad_out, backward({4}, PadMode::Reflect, {1}, {1}));
  EXPECT_EQ(values<float>(grad_in), (std::vector<float>{10, 5}));
}

TEST(ReferenceBackward, Reflect2D) {
  // in 2x3, pads (1,1) on both axes: rows read 1,0,1,0; cols read 1,0,1,2,1.
  std::vector<float> g(4 * 5);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>(i);
  const auto grad_in =
      ref::pad_backward_sum(make<float>(DType::F32, {4, 5}, g), backward({4, 5}, PadMode::Reflect, {1, 1}, {1, 1}));
  ASSERT_EQ(grad_in.shape, (Shape{2, 3}));
  // row sets: in row 0 <- out rows {1,3}; in row 1 <- {0,2}. col sets: 0 <- {1}; 1 <- {0,2,4}; 2 <- {3}.
  auto sum = [&](std::vector<int> rows, std::vector<int> cols) {
    float s = 0;
    for (int r : rows)
      for (int c : cols) s += g[static_cast<std::size_t>(r * 5 + c)];
    return s;
  };
  EXPECT_EQ(values<float>(grad_in), (std::vector<float>{sum({1, 3}, {1}), sum({1, 3}, {0, 2, 4}), sum({1, 3}, {3}),
                                                        sum({0, 2}, {1}), sum({0, 2}, {0, 2, 4}), sum({0, 2}, {3})}));
}

TEST(ReferenceBackward, SumsInAscendingOutputOrder) {
  // 1e8 + 1 rounds back to 1e8 in f32, so the order is visible: ((0 + 1e8) + 1) + -1e8 = 0.
  const auto one_d = ref::pad_backward_sum(make<float>(DType::F32, {3}, {1e8f, 1.0f, -1e8f}),
                                           backward({3}, PadMode::Replicate, {1}, {1}));
  EXPECT_EQ(values<float>(one_d), (std::vector<float>{0.0f}));
  // 2-D: axis 0 outermost, last axis fastest: 1e8, 1, -1e8, 1 -> 1 (column order would give 2).
  const auto two_d = ref::pad_backward_sum(make<float>(DType::F32, {2, 2}, {1e8f, 1.0f, -1e8f, 1.0f}),
                                           backward({2, 2}, PadMode::Replicate, {1, 0}, {0, 1}));
  EXPECT_EQ(values<float>(two_d), (std::vector<float>{1.0f}));
  // The exact (double) sums do not lose the 1s.
  const auto exact = ref::pad_backward_exact(make<float>(DType::F32, {2, 2}, {1e8f, 1.0f, -1e8f, 1.0f}),
                                             backward({2, 2}, PadMode::Replicate, {1, 0}, {0, 1}));
  EXPECT_EQ(exact.dtype, DType::F64);
  EXPECT_EQ(values<double>(exact), (std::vector<double>{2.0}));
}

TEST(ReferenceBackward, F64SumsInDouble) {
  const auto grad_in = ref::pad_backward_sum(make<double>(DType::F64, {3}, {0.1, 0.2, 0.3}),
                                             backward({3}, PadMode::Replicate, {0}, {2}));
  EXPECT_EQ(values<double>(grad_in), (std::vector<double>{((0.0 + 0.1) + 0.2) + 0.3}));
}

TEST(ReferenceBackward, F16RoundsOnce) {
  // 2048 + 1 + 1: rounding each step to f16 (spacing 2 at 2048) would give 2048 twice; summing in f32
  // and rounding once gives 2050 = 0x6801.
  const auto grad_in = ref::pad_backward_sum(make<std::uint16_t>(DType::F16, {3}, {0x6800, 0x3C00, 0x3C00}),
                                             backward({3}, PadMode::Replicate, {0}, {2}));
  EXPECT_EQ(values<std::uint16_t>(grad_in), (std::vector<std::uint16_t>{0x6801}));
  // The final narrowing is round-to-nearest-even: 2048 + 1 = 2049 is a tie and goes to 2048.
  const auto tie = ref::pad_backward_sum(make<std::uint16_t>(DType::F16, {2}, {0x6800, 0x3C00}),
                                         backward({2}, PadMode::Replicate, {0}, {1}));
  EXPECT_EQ(values<std::uint16_t>(tie), (std::vector<std::uint16_t>{0x6800}));
}

TEST(ReferenceBackward, BF16RoundsOnce) {
  // bf16 spacing at 256 is 2: 256 + 1 + 1 = 258 = 0x4381.
  const auto grad_in = ref::pad_backward_sum(make<std::uint16_t>(DType::BF16, {3}, {0x4380, 0x3F80, 0x3F80}),
                                             backward({3}, PadMode::Replicate, {2}, {0}));
  EXPECT_EQ(values<std::uint16_t>(grad_in), (std::vector<std::uint16_t>{0x4381}));
}

TEST(ReferenceBackward, SingleContributorKeepsItsBitsAndSumsStartFromTheFirstTerm) {
  // n=3, reflect pad (1,0): out reads in[1], in[0], in[1], in[2] -> grad_in = {o1, o0 + o2, o3}.
  const float nan_payload = std::bit_cast<float>(0x7FA00001u);  // a signalling NaN with a payload
  const auto grad_in = ref::pad_backward_sum(make<float>(DType::F32, {4}, {-0.0f, -0.0f, -0.0f, nan_payload}),
                                             backward({4}, PadMode::Reflect, {1}, {0}));
  const auto v = values<float>(grad_in);
  EXPECT_TRUE(std::signbit(v[0]));                             // one term: -0.0 stays -0.0
  EXPECT_TRUE(std::signbit(v[1]));                             // -0 + -0 = -0 (from +0 it would be +0)
  EXPECT_EQ(std::bit_cast<std::uint32_t>(v[2]), 0x7FA00001u);  // the payload, not a quieted NaN
}

TEST(ReferenceBackward, Errors) {
  const auto grad_out = make<float>(DType::F32, {4}, {1, 2, 3, 4});
  expect_error(ErrorCode::InvalidArgument,
               [&] { ref::pad_backward_sum(grad_out, backward({4}, PadMode::Constant, {1}, {1})); });
  const auto ints = make<std::int32_t>(DType::I32, {4}, {1, 2, 3, 4});
  expect_error(ErrorCode::DTypeNotAccepted,
               [&] { ref::pad_backward_sum(ints, backward({4}, PadMode::Reflect, {1}, {1})); });
  expect_error(ErrorCode::ShapeMismatch,
               [&] { ref::pad_backward_sum(grad_out, backward({5}, PadMode::Reflect, {1}, {1})); });
}

// ---- masked_fill ----

TEST(ReferenceMaskedFill, FillsWhereMaskIsNonzero) {
  const auto in = make<float>(DType::F32, {2, 2}, {1, 2, 3, 4});
  const auto mask = make<std::uint8_t>(DType::Bool, {2, 2}, {0, 1, 0, 2});
  const auto out = ref::masked_fill(in, mask, 0xBF800000);  // -1.0f
  EXPECT_EQ(values<float>(out), (std::vector<float>{1, -1, 3, -1}));
}

TEST(ReferenceMaskedFill, Errors) {
  const auto in = make<float>(DType::F32, {2}, {1, 2});
  expect_error(ErrorCode::DTypeNotAccepted, [&] {
    ref::masked_fill(in, make<std::uint8_t>(DType::U8, {2}, {0, 1}), 0);
  });
  expect_error(ErrorCode::ShapeMismatch, [&] {
    ref::masked_fill(in, make<std::uint8_t>(DType::Bool, {1, 2}, {0, 1}), 0);
  });
}

// ---- contiguize ----

std::vector<std::byte> iota_bytes(int n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  std::vector<std::byte> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(ReferenceContiguize, NegativeZeroAndTransposedStrides) {
  const auto base = iota_bytes(12);
  const std::int64_t neg[] = {-2};
  EXPECT_EQ(values<std::int32_t>(ref::contiguize(base, DType::I32, {3}, neg, 10)),
            (std::vector<std::int32_t>{10, 8, 6}));
  const std::int64_t bcast[] = {0, 1};
  EXPECT_EQ(values<std::int32_t>(ref::contiguize(base, DType::I32, {2, 3}, bcast, 4)),
            (std::vector<std::int32_t>{4, 5, 6, 4, 5, 6}));
  const std::int64_t transposed[] = {1, 3};
  EXPECT_EQ(values<std::int32_t>(ref::contiguize(base, DType::I32, {3, 2}, transposed, 0)),
            (std::vector<std::int32_t>{0, 3, 1, 4, 2, 5}));
  const std::int64_t mixed[] = {-4, -1};  // both axes reversed: a 180-degree rotation of a 3x4 block
  EXPECT_EQ(values<std::int32_t>(ref::contiguize(base, DType::I32, {3, 4}, mixed, 11)),
            (std::vector<std::int32_t>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values<std::int32_t>(ref::contiguize(base, DType::I32, {}, {}, 5)), (std::vector<std::int32_t>{5}));
  const std::int64_t one[] = {1};
  EXPECT_TRUE(ref::contiguize(base, DType::I32, {0}, one, 100).data.empty());  // reads nothing
}

TEST(ReferenceContiguize, OutOfBoundsViewsAreRejected) {
  const auto base = iota_bytes(12);
  const std::int64_t neg[] = {-2};
  expect_error(ErrorCode::InvalidArgument, [&] { ref::contiguize(base, DType::I32, {3}, neg, 3); });  // 3,1,-1
  const std::int64_t wide[] = {6};
  expect_error(ErrorCode::InvalidArgument, [&] { ref::contiguize(base, DType::I32, {2}, wide, 6); });  // 6,12
  // 12 i32 are 6 f64: element 6 is past the end.
  const std::int64_t unit[] = {1};
  expect_error(ErrorCode::InvalidArgument, [&] { ref::contiguize(base, DType::F64, {7}, unit, 0); });
  const std::int64_t huge[] = {std::int64_t{1} << 62};
  expect_error(ErrorCode::InvalidArgument, [&] { ref::contiguize(base, DType::I32, {5}, huge, 0); });
  expect_error(ErrorCode::InvalidArgument, [&] { ref::contiguize(base, DType::I32, {2, 2}, unit, 0); });
}

}  // namespace
}  // namespace fvk
