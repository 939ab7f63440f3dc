// contiguize_b{1,2,4,8} against ref::contiguize, bit for bit: transposed, sliced with an offset and a
// step, broadcast (stride 0), reversed and mixed views, ranks 1..8, rows at every byte alignment.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "expect_error.hpp"
#include "fvk/error.hpp"
#include "fvk/tensor_view.hpp"
#include "gpu_fixture.hpp"
#include "ops/contiguize.hpp"
#include "ops/launch.hpp"
#include "reference/random_tensor.hpp"
#include "reference/reference.hpp"
#include "runtime/buffer.hpp"

namespace fvk::testing {
namespace {

using ::testing::HasSubstr;

struct ViewCase {
  std::string name;
  Shape base;  // dense shape of the buffer the view is taken from
  std::function<TensorView(const TensorView&)> make;
};

std::vector<ViewCase> view_cases() {
  return {
      {"dense", {3, 5}, [](const TensorView& v) { return v; }},
      {"transposed_2d",
       {7, 13},
       [](const TensorView& v) {
         return v.permute({1, 0});
       }},
      {"permuted_4d",
       {2, 3, 4, 5},
       [](const TensorView& v) {
         return v.permute({2, 0, 3, 1});
       }},
      {"sliced_offset", {9, 37}, [](const TensorView& v) { return v.slice(0, 2, 8).slice(1, 3, 34); }},
      {"sliced_step", {6, 40}, [](const TensorView& v) { return v.slice(1, 1, 39, 3).slice(0, 1, 6, 2); }},
      {"broadcast_inner", {4, 1}, [](const TensorView& v) { return v.expand(1, 19); }},
      {"broadcast_outer", {1, 21}, [](const TensorView& v) { return v.expand(0, 5); }},
      {"reversed", {5, 23}, [](const TensorView& v) { return v.flip(1); }},
      {"reversed_both_transposed",
       {6, 11},
       [](const TensorView& v) {
         return v.flip(0).flip(1).permute({1, 0});
       }},
      {"long_odd_row_offset", {3, 203}, [](const TensorView& v) { return v.slice(1, 1, 202); }},
      {"rank8_mixed",
       {2, 3, 2, 1, 3, 2, 2, 5},
       [](const TensorView& v) {
         return v.permute({7, 1, 0, 3, 4, 6, 5, 2}).flip(0).expand(3, 2);
       }},
      {"empty",
       {4, 0},
       [](const TensorView& v) {
         return v.permute({1, 0});
       }},
  };
}

class ContiguizeKernel : public GpuTest, public ::testing::WithParamInterface<DType> {};

TEST_P(ContiguizeKernel, RealizesEveryLayoutBitExact) {
  const DType dtype = GetParam();
  std::mt19937_64 rng(42 + static_cast<int>(dtype));
  for (const auto& vc : view_cases()) {
    const HostTensor host = ref::random_bits(dtype, vc.base, rng);
    const Tensor base = ctx().upload(host);
    const TensorView view = vc.make(TensorView(base));
    const HostTensor want = ref::contiguize(host.data, dtype, view.shape(), view.strides(), view.offset());
    const Tensor out = ctx().empty(dtype, view.shape());
    ops::run_timed(ctx(),
                   [&](rt::Stream& s) { ops::record_contiguize(s, view.layout(), *base.storage(), *out.storage()); });
    const HostTensor got = ctx().download(out);
    EXPECT_EQ(got.data, want.data) << vc.name << " " << name(dtype) << " (" << view.layout().features().str() << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, ContiguizeKernel, ::testing::Values(DType::U8, DType::BF16, DType::F32, DType::I64),
                         [](const auto& info) { return std::string(name(info.param)); });

TEST(ContiguizeCoalesce, MergesDenseNeighboursAndDropsUnitAxes) {
  const auto c = ops::coalesce(ViewLayout{DType::F32, {2, 1, 3, 4}, {12, 99, 4, 1}, 5});
  EXPECT_EQ(c.shape, (Shape{24}));
  EXPECT_EQ(c.strides, (Strides{1}));
  EXPECT_EQ(c.offset, 5);
  const auto t = ops::coalesce(ViewLayout{DType::F32, {3, 4}, {1, 3}, 0});  // transposed: nothing to merge
  EXPECT_EQ(t.shape, (Shape{3, 4}));
  const auto b = ops::coalesce(ViewLayout{DType::F32, {2, 3, 4}, {0, 0, 0}, 2});  // all broadcast: one axis
  EXPECT_EQ(b.shape, (Shape{24}));
  EXPECT_EQ(b.strides, (Strides{0}));
}

TEST(TensorViewLayout, FeaturesInContractWords) {
  EXPECT_TRUE(ViewLayout::dense(DType::F32, {2, 3}).features().contiguous);
  EXPECT_EQ((ViewLayout{DType::F32, {3, 2}, {1, 3}, 0}).features().str(), "strided");
  EXPECT_EQ((ViewLayout{DType::F32, {2, 3}, {3, 1}, 4}).features().str(), "offset");
  EXPECT_EQ((ViewLayout{DType::F32, {2, 3}, {0, 1}, 0}).features().str(), "broadcast");
  EXPECT_EQ((ViewLayout{DType::F32, {2, 3}, {3, -1}, 2}).features().str(), "offset+reversed");
  // Size-1 axes never step: their stride does not matter.
  EXPECT_TRUE((ViewLayout{DType::F32, {1, 3}, {-7, 1}, 0}).features().contiguous);
  EXPECT_EQ(column_major_strides({2, 3, 4}), (Strides{1, 2, 6}));
}

class TensorViewErrors : public GpuTest {};

TEST_F(TensorViewErrors, ReachOutsideTheBufferNamesTheArgument) {
  const Tensor base = ctx().empty(DType::F32, {4, 4});
  const auto message = expect_error(ErrorCode::InvalidArgument, [&] {
    TensorView(base, {4, 4}, {4, 1}, 1, "grad_out");
  });
  EXPECT_THAT(message, HasSubstr("grad_out"));
  EXPECT_THROW(TensorView(base, {4, 4}, {-4, 1}, 0), Error);  // reversed without an offset: reads -12
  EXPECT_THROW(TensorView(base, {4, 4}, {4}, 0), Error);      // one stride for two dims
  EXPECT_NO_THROW(TensorView(base, {4, 4}, {-4, -1}, 15));    // fully reversed
  EXPECT_NO_THROW(TensorView(base, {3, 100}, {0, 0}, 15));    // broadcast of the last element
  EXPECT_THROW(TensorView(base).slice(1, 2, 5), Error);
}

// A step larger than the slice keeps its first element, whatever the step (no overflow near 2^63).
TEST_F(TensorViewErrors, SliceStepsUpToTheInt64Limit) {
  const Tensor base = ctx().empty(DType::F32, {5});
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  for (const auto step : {std::int64_t{5}, std::int64_t{1} << 62, max - 1, max}) {
    SCOPED_TRACE(step);
    const TensorView first = TensorView(base).slice(0, 0, 5, step);
    EXPECT_EQ(first.shape(), (Shape{1}));
    EXPECT_EQ(first.offset(), 0);
    const TensorView second = TensorView(base).slice(0, 1, 5, step);
    EXPECT_EQ(second.shape(), (Shape{1}));
    EXPECT_EQ(second.offset(), 1);
    EXPECT_EQ(TensorView(base).slice(0, 3, 3, step).shape(), (Shape{0}));
  }
  const TensorView every_other = TensorView(base).slice(0, 0, 5, 2);
  EXPECT_EQ(every_other.shape(), (Shape{3}));
  EXPECT_EQ(every_other.strides(), (Strides{2}));
}

// Session 63's hunt (UBSan): the stride of a size-1 axis and the offset and strides of an empty view
// are never held to a reach (nothing is read through them), and flip and slice overflowed on them.
// Where the new offset or stride would overflow it stays as it was; elsewhere they move as before
// (and as torch's storage_offset does for an empty slice).
TEST_F(TensorViewErrors, FlipAndSliceOfStridesNothingReadsDoNotOverflow) {
  const Tensor base = ctx().empty(DType::F32, {4});
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const TensorView one = TensorView(base, {1}, {min}, 0).flip(0);
  EXPECT_EQ(one.strides(), (Strides{min}));
  EXPECT_EQ(one.offset(), 0);
  const TensorView past_end = TensorView(base, {1}, {max}, 1).slice(0, 1, 1);
  EXPECT_EQ(past_end.shape(), (Shape{0}));
  EXPECT_EQ(past_end.offset(), 1);
  const TensorView empty(base, {0, 3}, {1, 1}, max);
  EXPECT_EQ(empty.flip(1).offset(), max);
  EXPECT_EQ(empty.slice(1, 1, 3).offset(), max);
  EXPECT_EQ(empty.flip(1).strides(), (Strides{1, -1}));
  // Without overflow, as before: a flip starts at the axis's last element, a size-1 axis's stride
  // turns, and an empty slice starts at `begin`.
  const TensorView four = TensorView(base).flip(0);
  EXPECT_EQ(four.offset(), 3);
  EXPECT_EQ(four.strides(), (Strides{-1}));
  EXPECT_EQ(TensorView(base, {1, 4}, {4, 1}, 0).flip(0).strides(), (Strides{-4, 1}));
  EXPECT_EQ(TensorView(base).slice(0, 2, 2).offset(), 2);
}

}  // namespace
}  // namespace fvk::testing
