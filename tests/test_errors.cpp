// Every bad input gets its own error code, and nothing is dispatched before the refusal.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <limits>
#include <random>

#include "expect_error.hpp"
#include "fvk/batch.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "fvk/scalar.hpp"
#include "fvk/tensor_view.hpp"
#include "gpu_fixture.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"
#include "ops/targets.hpp"
#include "reference/random_tensor.hpp"
#include "reference/reference.hpp"
#include "runtime/device.hpp"
#include "selftest/harness.hpp"

namespace fvk::testing {
namespace {

using ::testing::HasSubstr;

class Refusals : public GpuTest {
 protected:
  // Runs `f`, expects Error with `code`, and checks that no kernel was dispatched meanwhile.
  void expect_refused(ErrorCode code, const std::function<void()>& f) {
    const auto before = ctx().dispatch_count();
    EXPECT_FALSE(expect_error(code, f).empty()) << "an empty message (or none: nothing was thrown)";
    EXPECT_EQ(ctx().dispatch_count(), before) << "a refused op dispatched a kernel";
  }
  Tensor tensor(DType d, Shape s) { return ctx().upload(HostTensor::zeros(d, std::move(s))); }
  static PadSpec spec(PadMode m, std::vector<std::int64_t> l, std::vector<std::int64_t> r) {
    return PadSpec{m, std::move(l), std::move(r)};
  }
};

TEST_F(Refusals, RankZero) {
  const Tensor t = tensor(DType::F32, {});
  expect_refused(ErrorCode::RankOutOfRange, [&] { pad(ctx(), t, spec(PadMode::Constant, {}, {})); });
}

TEST_F(Refusals, RankNine) {
  const Tensor t = tensor(DType::F32, Shape(9, 1));
  expect_refused(ErrorCode::RankOutOfRange, [&] {
    pad(ctx(), t, spec(PadMode::Constant, std::vector<std::int64_t>(9, 0), std::vector<std::int64_t>(9, 1)));
  });
  expect_refused(ErrorCode::RankOutOfRange, [&] {
    pad_backward(ctx(), t, spec(PadMode::Reflect, std::vector<std::int64_t>(9, 0), std::vector<std::int64_t>(9, 0)));
  });
}

// A tensor is usable only with the context that made it; a default-constructed one nowhere. Each op,
// the planned ops and download refuse both, naming the argument, before anything is dispatched.
TEST_F(Refusals, TensorsOfAnotherContextOrNone) {
  const Tensor mine = tensor(DType::F32, {3, 4});
  const Tensor mask = tensor(DType::Bool, {3, 4});
  const Tensor theirs = poisoned_context().upload(HostTensor::zeros(DType::F32, {3, 4}));
  const Tensor their_mask = poisoned_context().upload(HostTensor::zeros(DType::Bool, {3, 4}));
  const Tensor their_out = poisoned_context().empty(DType::F32, {4, 6});
  const auto c = spec(PadMode::Constant, {1, 1}, {0, 1});
  const auto r = spec(PadMode::Reflect, {1, 1}, {0, 1});
  const std::string other = "was made by another fvk::Context";
  auto refused = [&](const std::function<void()>& f) {
    const auto before = ctx().dispatch_count();
    const auto msg = expect_error(ErrorCode::InvalidArgument, f);
    EXPECT_EQ(ctx().dispatch_count(), before) << "a refused op dispatched a kernel";
    return msg;
  };
  EXPECT_THAT(refused([&] { pad(ctx(), theirs, c); }), HasSubstr("input tensor " + other));
  EXPECT_THAT(refused([&] { pad_into(ctx(), mine, their_out, c); }), HasSubstr("out tensor " + other));
  EXPECT_THAT(refused([&] { pad_backward(ctx(), theirs, r); }), HasSubstr("grad_out tensor " + other));
  EXPECT_THAT(refused([&] { masked_fill(ctx(), theirs, mask, Scalar::from_int(1)); }),
              HasSubstr("input tensor " + other));
  EXPECT_THAT(refused([&] { masked_fill(ctx(), mine, their_mask, Scalar::from_int(1)); }),
              HasSubstr("mask tensor " + other));
  EXPECT_THAT(refused([&] { pad(ctx(), TensorView(theirs), c); }), HasSubstr("pad input 0's base tensor " + other));
  EXPECT_THAT(refused([&] { masked_fill(ctx(), TensorView(mine), TensorView(their_mask), Scalar::from_int(1)); }),
              HasSubstr("masked_fill input 1's base tensor " + other));
  EXPECT_THAT(refused([&] { (void)ctx().download(theirs); }), HasSubstr("downloaded tensor " + other));
  EXPECT_THAT(refused([&] { (void)ctx().download(Tensor()); }),
              HasSubstr("downloaded tensor is empty (default-constructed)"));
  const std::string none = "tensor is empty (default-constructed)";
  EXPECT_THAT(refused([&] { pad(ctx(), Tensor(), c); }), HasSubstr("input " + none));
  EXPECT_THAT(refused([&] { pad_into(ctx(), mine, Tensor(), c); }), HasSubstr("out " + none));
  EXPECT_THAT(refused([&] { pad_backward(ctx(), Tensor(), r); }), HasSubstr("grad_out " + none));
  EXPECT_THAT(refused([&] { masked_fill(ctx(), mine, Tensor(), Scalar::from_int(1)); }), HasSubstr("mask " + none));
  EXPECT_THAT(refused([&] { pad(ctx(), TensorView(), c); }), HasSubstr("pad input 0 is an empty view"));
  // Tensor's public constructor over storage too small for the shape: refused, not read past.
  const Tensor alias(mine.storage(), DType::F64, {65536});
  EXPECT_THAT(refused([&] { (void)ctx().download(alias); }),
              HasSubstr("downloaded tensor: f64 of shape [65536] needs 524288 bytes, but its storage holds 48"));
  EXPECT_THAT(refused([&] { pad(ctx(), alias, spec(PadMode::Constant, {1}, {1})); }),
              HasSubstr("input tensor: f64 of shape"));
  // Its own context takes it.
  EXPECT_EQ(poisoned_context().download(pad(poisoned_context(), theirs, c)).shape, (Shape{4, 6}));
}

// A tensor may outlive the context that made it: it holds the device, which goes with the last
// tensor (under ASan, docs/data/sanitizers.md, a use after free otherwise). Downloads and ops through
// the context before it goes see the right bytes.
TEST(ContextLifetime, TensorsOutliveTheirContext) {
  Tensor kept;
  HostTensor host = HostTensor::zeros(DType::I32, {2, 3});
  for (std::size_t i = 0; i < host.numel(); ++i) host.set<std::int32_t>(i, static_cast<std::int32_t>(i) * 7 - 5);
  Tensor kept_planned;
  {
    Context ctx;
    kept = pad(ctx, ctx.upload(host), PadSpec{PadMode::Replicate, {0, 1}, {0, 0}});
    const HostTensor back = ctx.download(kept);
    EXPECT_EQ(back.get<std::int32_t>(0), host.get<std::int32_t>(0));
    EXPECT_EQ(back.get<std::int32_t>(1), host.get<std::int32_t>(0));
    // A planned op on a transposed view: its Contiguize temporary is cached in the context's pool,
    // which the context frees when it goes (~Context), while the output stays.
    kept_planned = pad(ctx, TensorView(ctx.upload(host)).permute({1, 0}), PadSpec{PadMode::Constant, {1, 0}, {0, 0}});
    EXPECT_EQ(ctx.runtime().temp_pool().cached(), 1u);
    EXPECT_EQ(ctx.download(kept_planned).get<std::int32_t>(3 + 1), host.get<std::int32_t>(1));
    EXPECT_TRUE(ctx.validation_messages().empty());
  }
  EXPECT_EQ(kept_planned.shape(), (Shape{4, 2}));
  kept_planned = Tensor();
  EXPECT_TRUE(kept.defined());
  EXPECT_EQ(kept.nbytes(), 2u * 4u * 4u);
  kept = Tensor();  // the last owner of the device: the buffer goes first, then the device
  EXPECT_FALSE(kept.defined());
}

// A moved-from Context has no device: its methods refuse, naming the cause, where they dereferenced
// null (session 63's hunt, a suspicion it did not run into).
TEST(ContextLifetime, AMovedFromContextRefusesWithItsCause) {
  Context from;
  Context to(std::move(from));
  EXPECT_FALSE(to.device_info().name.empty());
  for (const auto& use : std::vector<std::function<void()>>{
           [&] { (void)from.device_info(); }, [&] { (void)from.empty(DType::F32, {2}); },
           [&] { (void)from.upload(HostTensor::zeros(DType::F32, {2})); }, [&] { (void)from.runtime(); },
           [&] { from.check_tensor(to.empty(DType::F32, {2}), "input"); }})
    EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, use), HasSubstr("this Context was moved from"));
}

// Session 63's hunt: a context assigned over kept its cache of temporaries (up to 256 MiB) while a
// tensor of it held its device; ~Context frees them, the move assignment did not.
TEST(ContextLifetime, AssigningOverAContextFreesItsTemporaries) {
  Tensor kept;
  Context ctx;
  {
    const Tensor x = ctx.upload(HostTensor::zeros(DType::F32, {8, 8}));
    kept = pad(ctx, TensorView(x).permute({1, 0}), PadSpec{PadMode::Constant, {1, 0}, {0, 0}});
  }
  rt::Device& old = ctx.runtime();  // kept holds it
  ASSERT_EQ(old.temp_pool().cached(), 1u);
  ctx = Context();
  EXPECT_EQ(old.temp_pool().cached(), 0u);
  EXPECT_NE(&ctx.runtime(), &old);
  EXPECT_EQ(kept.shape(), (Shape{9, 8}));
}

// pad reads input while it writes out: an out on input's own storage is refused, not dispatched.
TEST_F(Refusals, OutOnTheStorageOfInput) {
  const Tensor in = tensor(DType::F32, {4, 6});
  const Tensor in_head(in.storage(), DType::F32, {4, 4});
  const auto before = ctx().dispatch_count();
  EXPECT_THAT(expect_error(ErrorCode::InvalidArgument,
                           [&] {
                             pad_into(ctx(), in_head, in, spec(PadMode::Replicate, {0, 0}, {0, 2}));
                           }),
              HasSubstr("out shares its storage with input"));
  EXPECT_EQ(ctx().dispatch_count(), before);
}

TEST_F(Refusals, OutShapeMustBeInPlusPads) {
  const Tensor in = tensor(DType::F32, {3, 4});
  const Tensor wrong = tensor(DType::F32, {3, 7});
  expect_refused(ErrorCode::ShapeMismatch, [&] {
    pad_into(ctx(), in, wrong, spec(PadMode::Constant, {0, 1}, {0, 1}));
  });
  const Tensor wrong_dtype = tensor(DType::I32, {3, 6});
  expect_refused(ErrorCode::DTypeNotAccepted, [&] {
    pad_into(ctx(), in, wrong_dtype, spec(PadMode::Constant, {0, 1}, {0, 1}));
  });
}

TEST_F(Refusals, NegativePad) {
  const Tensor in = tensor(DType::U8, {5});
  expect_refused(ErrorCode::NegativePad, [&] { pad(ctx(), in, spec(PadMode::Replicate, {-1}, {0})); });
}

TEST_F(Refusals, ReflectPadBeyondDimMinusOne) {
  const Tensor in = tensor(DType::F16, {2, 3});
  expect_refused(ErrorCode::ReflectPadTooLarge, [&] { pad(ctx(), in, spec(PadMode::Reflect, {0, 3}, {0, 0})); });
  expect_refused(ErrorCode::ReflectPadTooLarge, [&] { pad(ctx(), in, spec(PadMode::Reflect, {0, 0}, {0, 3})); });
  const Tensor grad = tensor(DType::F32, {2, 9});
  expect_refused(ErrorCode::ReflectPadTooLarge, [&] {
    pad_backward(ctx(), grad, spec(PadMode::Reflect, {0, 3}, {0, 3}));
  });
}

TEST_F(Refusals, EmptyDimWhereDataIsNeeded) {
  const Tensor in = tensor(DType::F32, {0, 3});
  expect_refused(ErrorCode::EmptyDimension, [&] { pad(ctx(), in, spec(PadMode::Reflect, {1, 0}, {0, 0})); });
  expect_refused(ErrorCode::EmptyDimension, [&] { pad(ctx(), in, spec(PadMode::Replicate, {0, 0}, {1, 0})); });
  // Constant mode needs no data: the output is all fill.
  const Tensor out = pad(ctx(), in, spec(PadMode::Constant, {1, 0}, {0, 0}), Scalar::from_double(2));
  EXPECT_EQ(ctx().download(out).get<float>(2), 2.0f);
}

TEST_F(Refusals, DTypeNotAccepted) {
  const Tensor ints = tensor(DType::I32, {4, 6});
  expect_refused(ErrorCode::DTypeNotAccepted, [&] {
    pad_backward(ctx(), ints, spec(PadMode::Reflect, {0, 1}, {0, 1}));
  });
  expect_refused(ErrorCode::DTypeNotAccepted, [&] {
    pad_backward(ctx(), ints, spec(PadMode::Replicate, {0, 1}, {0, 1}), BackwardAlgorithm::Atomic);
  });
  const Tensor in = tensor(DType::F32, {4});
  const Tensor mask_u8 = tensor(DType::U8, {4});
  expect_refused(ErrorCode::DTypeNotAccepted, [&] { masked_fill(ctx(), in, mask_u8, Scalar::from_int(1)); });
}

TEST_F(Refusals, MaskOfAnotherShape) {
  const Tensor in = tensor(DType::F32, {4, 2});
  const Tensor mask = tensor(DType::Bool, {2, 4});
  expect_refused(ErrorCode::ShapeMismatch, [&] { masked_fill(ctx(), in, mask, Scalar::from_int(1)); });
}

TEST_F(Refusals, GradOutSmallerThanPads) {
  const Tensor grad = tensor(DType::F32, {3});
  expect_refused(ErrorCode::ShapeMismatch, [&] { pad_backward(ctx(), grad, spec(PadMode::Constant, {2}, {2})); });
}

TEST_F(Refusals, BeyondThirtyTwoBitIndexing) {
  // Validation happens on the shape alone: no 16 GiB tensor is ever allocated.
  expect_error(ErrorCode::IndexOverflow, [] {
    infer_pad({1 << 20, 1 << 12}, spec(PadMode::Constant, {0, 0}, {0, 1 << 12}));
  });
}

// An empty tensor has no element to index: its dims count, their product does not, wherever its 0 is.
TEST_F(Refusals, EmptyTensorsAreNotRefusedForTheProductOfTheirOtherDims) {
  for (const Shape& s : {Shape{70000, 70000, 0}, Shape{0, 70000, 70000}, Shape{70000, 0, 70000}}) {
    SCOPED_TRACE(to_string(s));
    EXPECT_EQ(numel(infer_pad(s, spec(PadMode::Constant, {0, 0, 0}, {0, 0, 0})).out), 0);
    EXPECT_EQ(numel(infer_pad_backward(s, spec(PadMode::Replicate, {0, 0, 0}, {0, 0, 0})).in), 0);
  }
  // A pad that fills the empty dim makes the output 9.8e9 elements: refused.
  EXPECT_THAT(expect_error(ErrorCode::IndexOverflow,
                           [] {
                             infer_pad({70000, 70000, 0}, spec(PadMode::Constant, {0, 0, 1}, {0, 0, 1}));
                           }),
              HasSubstr("output tensor [70000,70000,2] has more than 2^32-1 elements"));
}

TEST_F(Refusals, DimsFromTwoToTheThirtyOneOn) {
  // Under 2^32 elements but a dim of 2^31: the kernels' per-axis coordinates are signed 32-bit.
  for (const auto mode : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate}) {
    SCOPED_TRACE(fmt::format("a dim of 2^31, {}", name(mode)));
    EXPECT_THAT(
        expect_error(ErrorCode::IndexOverflow, [&] { infer_pad({std::int64_t{1} << 31}, spec(mode, {0}, {5})); }),
        HasSubstr("2^31-1"));
  }
  EXPECT_NO_THROW(infer_pad({(std::int64_t{1} << 31) - 6}, spec(PadMode::Constant, {0}, {5})));
}

// The 32-bit limits on pads and output dims name the dim and the numbers that broke them.
TEST_F(Refusals, PadAndOutputLimitsNameTheirNumbers) {
  const std::int64_t big_pad = std::int64_t{1} << 32;
  EXPECT_THAT(expect_error(ErrorCode::IndexOverflow,
                           [&] {
                             infer_pad({4, 4}, spec(PadMode::Constant, {0, 0}, {0, big_pad}));
                           }),
              HasSubstr("pad on dim 1 is (0, 4294967296)"));
  const std::int64_t near = (std::int64_t{1} << 31) - 4;
  EXPECT_THAT(expect_error(ErrorCode::IndexOverflow,
                           [&] {
                             infer_pad({2, near}, spec(PadMode::Constant, {0, 2}, {0, 3}));
                           }),
              HasSubstr(fmt::format("output dim 1 would be {} + 2 + 3 = {}", near, near + 5)));
}

TEST_F(Refusals, DimsNearTheInt64LimitAreRefusedBeforeTheSumWithThePads) {
  // in + left + right must not be computed (it overflows); the dim alone is refused.
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max() - 2;
  EXPECT_THAT(expect_error(ErrorCode::IndexOverflow, [&] { infer_pad({huge}, spec(PadMode::Constant, {0}, {5})); }),
              HasSubstr("2^31-1"));
  expect_error(ErrorCode::IndexOverflow, [&] {
    infer_pad_backward({huge, 4}, spec(PadMode::Reflect, {0, 1}, {0, 1}));
  });
}

// Every tensor the API makes has a shape with dense strides: no negative dim, and a product of dims
// (0 counted as 1) times the element size under 2^63. The host tensor, the device tensor, the upload
// and the view all refuse the rest with the code, naming what was given, before any allocation.
TEST_F(Refusals, ShapesWithoutDenseStrides) {
  const Shape negative{4, -1};
  const Shape huge{std::int64_t{1} << 40, std::int64_t{1} << 40};
  const Shape huge_empty{0, std::int64_t{1} << 40, std::int64_t{1} << 40};
  EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [&] { HostTensor::zeros(DType::F32, negative); }),
              HasSubstr("host tensor dim 1 is -1"));
  expect_refused(ErrorCode::InvalidArgument, [&] { ctx().empty(DType::F32, negative); });
  for (const Shape& s : {huge, huge_empty}) {
    SCOPED_TRACE(to_string(s));
    EXPECT_THAT(expect_error(ErrorCode::IndexOverflow, [&] { HostTensor::zeros(DType::U8, s); }),
                HasSubstr("2^63-1 bytes"));
    expect_refused(ErrorCode::IndexOverflow, [&] { ctx().empty(DType::U8, s); });
    expect_refused(ErrorCode::IndexOverflow, [&] { ctx().upload(HostTensor{DType::U8, s, {}}); });
  }
  expect_refused(ErrorCode::InvalidArgument, [&] { ctx().upload(HostTensor{DType::U8, negative, {}}); });
  // 2^62 one-byte elements span under 2^63 bytes; of 2 bytes they do not.
  const Shape edge{0, std::int64_t{1} << 31, std::int64_t{1} << 31};
  EXPECT_EQ(ctx().empty(DType::U8, edge).nbytes(), 0u);
  expect_refused(ErrorCode::IndexOverflow, [&] { ctx().empty(DType::F16, edge); });
  // A broadcast view may be far larger than its buffer, but its element count must fit in 63 bits.
  const Tensor one = tensor(DType::F32, {1});
  EXPECT_THAT(expect_error(ErrorCode::IndexOverflow,
                           [&] {
                             TensorView(one, huge, {0, 0}, 0, "grad_out");
                           }),
              HasSubstr("grad_out shape"));
  EXPECT_EQ(TensorView(one, {std::int64_t{1} << 30, 4}, {0, 0}, 0).numel(), std::int64_t{1} << 32);
}

TEST_F(Refusals, BeyondMaxStorageBufferRange) {
  const std::uint64_t range = ctx().device_info().max_storage_buffer_range;
  // An input just under the binding limit (and under the largest allocation, which on the H200 is
  // 2 MiB under the binding limit) whose padded output is over the binding limit (no data is
  // uploaded).
  const std::uint64_t room = std::min(range, ctx().device_info().max_memory_allocation_size);
  const std::int64_t n = static_cast<std::int64_t>(room / 4 - 1024);
  const std::int64_t right = static_cast<std::int64_t>((range - static_cast<std::uint64_t>(n) * 4) / 4 + 1024);
  const Tensor in = ctx().empty(DType::F32, {n});
  expect_refused(ErrorCode::DeviceLimit, [&] { pad(ctx(), in, spec(PadMode::Constant, {0}, {right})); });
}

TEST_F(Refusals, FillValueOutOfRange) {
  const Tensor u8 = tensor(DType::U8, {4});
  expect_refused(ErrorCode::ValueOutOfRange,
                 [&] { pad(ctx(), u8, spec(PadMode::Constant, {1}, {1}), Scalar::from_int(256)); });
  expect_refused(ErrorCode::ValueOutOfRange,
                 [&] { pad(ctx(), u8, spec(PadMode::Constant, {1}, {1}), Scalar::from_int(-1)); });
  const Tensor f16 = tensor(DType::F16, {4});
  expect_refused(ErrorCode::ValueOutOfRange,
                 [&] { pad(ctx(), f16, spec(PadMode::Constant, {1}, {1}), Scalar::from_double(70000.0)); });
  const Tensor i32 = tensor(DType::I32, {4});
  expect_refused(ErrorCode::ValueOutOfRange,
                 [&] { pad(ctx(), i32, spec(PadMode::Constant, {1}, {1}), Scalar::from_double(0.5)); });
  const Tensor b = tensor(DType::Bool, {4});
  expect_refused(ErrorCode::ValueOutOfRange,
                 [&] { pad(ctx(), b, spec(PadMode::Constant, {1}, {1}), Scalar::from_int(2)); });
}

TEST_F(Refusals, TorchPadListMustBePairs) {
  const std::int64_t odd[] = {1, 2, 3};
  EXPECT_THROW(PadSpec::from_torch(PadMode::Constant, 2, odd), Error);
  const std::int64_t too_many[] = {1, 1, 1, 1, 1, 1};
  expect_error(ErrorCode::InvalidArgument, [&] { PadSpec::from_torch(PadMode::Constant, 2, too_many); });
}

TEST(DeviceFeatures, MissingF64FeaturesAreNamed) {
  ContextOptions options;
  options.disabled_features = {"shaderInt64", "shaderBufferInt64Atomics", "shaderFloat64"};
  Context limited(options);
  const Tensor grad = limited.upload(HostTensor::zeros(DType::F64, {8}));
  const PadSpec s{PadMode::Reflect, {1}, {1}};
  for (auto algorithm : {BackwardAlgorithm::Atomic, BackwardAlgorithm::Deterministic}) {
    EXPECT_THAT(expect_error(ErrorCode::FeatureMissing, [&] { pad_backward(limited, grad, s, algorithm); }),
                HasSubstr("shaderFloat64"));
  }
  // f32 needs none of them.
  EXPECT_NO_THROW(pad_backward(limited, limited.upload(HostTensor::zeros(DType::F32, {8})), s));
  EXPECT_TRUE(limited.validation_messages().empty());
}

// pad.comp's 1- to 4-byte builds and the f32 deterministic backward use subgroup ballots and
// shuffles (the tile passes' subgroup queues). A device without either gets their portable builds
// (contracts/portable.fkc.md) from the public ops, with the same bytes; the atomic backward's crop
// too. always_split_passes puts the tile passes within reach of these small tensors.
TEST(DeviceFeatures, WithoutSubgroupOperationsThePortableBuildsRun) {
  ContextOptions options;
  options.disabled_features = {"subgroupShuffle"};
  options.always_split_passes = true;
  Context limited(options);
  const auto& info = limited.device_info();
  EXPECT_EQ(ops::pad_kernel(info, PadMode::Reflect, DType::U8), "pad_reflect_portable_b1");
  EXPECT_EQ(ops::pad_kernel(info, PadMode::Constant, DType::F32), "pad_const_portable_b4");
  EXPECT_EQ(ops::pad_kernel(info, PadMode::Replicate, DType::I64), "pad_replicate_b8");  // needs none
  EXPECT_EQ(ops::pad_backward_kernel(info, PadMode::Constant, DType::F16, BackwardAlgorithm::Deterministic),
            "pad_backward_const_portable_b2");
  EXPECT_EQ(ops::pad_backward_kernel(info, PadMode::Reflect, DType::F32, BackwardAlgorithm::Deterministic),
            "pad_backward_reflect_det_portable_f32");
  EXPECT_EQ(ops::pad_backward_kernel(info, PadMode::Reflect, DType::F16, BackwardAlgorithm::Deterministic),
            "pad_backward_reflect_det_f16");
  // Rows of 600 bytes: the tile pass with four chunks per invocation, whose fast builds queue in
  // their subgroups.
  std::mt19937_64 rng(5);
  for (const DType d : {DType::U8, DType::F32}) {
    const Shape shape{3, 5, 600 / static_cast<std::int64_t>(byte_width(d)) - 6};
    const PadSpec s{PadMode::Reflect, {0, 2, 3}, {0, 1, 3}};
    const HostTensor in = ref::random_bits(d, shape, rng);
    const PadGeometry g = infer_pad(shape, s);
    EXPECT_EQ(limited.download(pad(limited, limited.upload(in), s)).data, ref::pad(in, g, 0).data) << name(d);
  }
  // The deterministic backward takes its split passes here (always_split_passes), the same in both
  // builds: its portable tile pass has its own test (Backward.DeterministicTilePassGeometries).
  const Shape grad_shape{4, 6, 130};
  const PadSpec back{PadMode::Reflect, {0, 2, 3}, {0, 1, 2}};
  const HostTensor grad_out = ref::random_values(DType::F32, grad_shape, rng);
  const PadGeometry g = infer_pad_backward(grad_shape, back);
  EXPECT_EQ(limited.download(pad_backward(limited, limited.upload(grad_out), back)).data,
            ref::pad_backward_sum(grad_out, g).data);
  // The atomic backward adds onto the portable crop: within its bound, checked by the selftest; here
  // that it runs.
  EXPECT_NO_THROW(pad_backward(limited, limited.upload(grad_out), back, BackwardAlgorithm::Atomic));
  EXPECT_TRUE(limited.validation_messages().empty());
}

// The f64 atomic backwards add with the device's f64 atomic add (shaderBufferFloat64AtomicAdd).
// Without it (lavapipe has none) the public ops take their portable builds, compare-and-swap loops,
// and on a device with it the fast builds; the portable build's sums stay within the reordered-sum
// bound (selftest::run_case), on the default passes and on the split ones (the crop, then the pads
// added).
TEST(DeviceFeatures, WithoutTheF64AtomicAddThePortableBuildsAdd) {
  ContextOptions options;
  options.disabled_features = {"shaderBufferFloat64AtomicAdd"};
  Context limited(options);
  for (const auto mode : {PadMode::Reflect, PadMode::Replicate}) {
    const std::string fast = fmt::format("pad_backward_{}_f64", name(mode));
    EXPECT_EQ(ops::pad_backward_kernel(limited.device_info(), mode, DType::F64, BackwardAlgorithm::Atomic),
              ops::portable_build_name(fast));
    const auto& info = shared_context().device_info();
    EXPECT_EQ(ops::pad_backward_kernel(info, mode, DType::F64, BackwardAlgorithm::Atomic),
              info.buffer_float64_atomic_add ? fast : ops::portable_build_name(fast));
  }
  for (const bool split : {false, true}) {
    ContextOptions o = options;
    o.always_split_passes = split;
    Context cx(o);
    for (const auto mode : {PadMode::Reflect, PadMode::Replicate}) {
      const ops::Target t{ops::portable_build_name(fmt::format("pad_backward_{}_f64", name(mode))),
                          ops::Op::PadBackward,
                          mode,
                          BackwardAlgorithm::Atomic,
                          DType::F64,
                          false};
      selftest::Case c;
      c.seed = 11;
      c.shape = {3, 7, 40};
      c.left = {1, 2, 3};
      c.right = {0, 2, 5};
      const auto outcome = selftest::run_case(cx, t, c);
      EXPECT_TRUE(outcome.pass) << t.kernel << (split ? " split: " : ": ") << outcome.detail;
    }
    EXPECT_TRUE(cx.validation_messages().empty());
  }
}

TEST(DeviceSelection, UnknownSelectorIsRefusedWithTheDeviceList) {
  const auto message = expect_error(ErrorCode::DeviceNotFound, [] {
    Context c(ContextOptions{"no-such-device-xyz", std::nullopt, {}});
  });
  EXPECT_THAT(message, HasSubstr("0:"));
}

TEST(DeviceSelection, AnIndexBeyondSixtyFourBitsMatchesNoDevice) {
  expect_error(ErrorCode::DeviceNotFound, [] { Context c(ContextOptions{"18446744073709551616", std::nullopt, {}}); });
}

// Scalar::parse once passed ' -5' to strtoull, which skipped the space and wrapped -5 to 2^64 - 5.
TEST(ScalarText, WhiteSpaceIsRefusedAndSignsKeepTheirValue) {
  for (const char* text : {" -5", "\t-1", "5 ", " 5", "1 2"})
    EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [&] { Scalar::parse(text); }), HasSubstr("white space"))
        << text;
  EXPECT_EQ(Scalar::parse("-5").bits(DType::I64), static_cast<std::uint64_t>(std::int64_t{-5}));
  EXPECT_EQ(Scalar::parse("+5").bits(DType::U64), 5u);
  expect_error(ErrorCode::ValueOutOfRange, [] { Scalar::parse("-5").bits(DType::U64); });
}

// Found by fuzz/fuzz_scalar: strtod and strtoull stop at a NUL, so "5\0x" was taken as 5.
TEST(ScalarText, ANulIsRefused) {
  using namespace std::string_view_literals;
  for (const auto text : {"5\0x"sv, "\0"sv, "1.5\0"sv, "true\0"sv})
    EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [&] { Scalar::parse(text); }), HasSubstr("NUL character"));
}

// Found while writing fuzz/fuzz_scalar: integers were read with base 0, so a leading 0 meant octal
// ("010" was 8, "-010" -8) while "08" fell through to strtod as 8.0. Decimal now, hex after 0x.
TEST(ScalarText, LeadingZerosAreDecimal) {
  EXPECT_EQ(Scalar::parse("010").bits(DType::I64), 10u);
  EXPECT_EQ(Scalar::parse("-010").bits(DType::I64), static_cast<std::uint64_t>(std::int64_t{-10}));
  EXPECT_EQ(Scalar::parse("+0010").bits(DType::U8), 10u);
  EXPECT_EQ(Scalar::parse("08").bits(DType::I32), 8u);
  EXPECT_EQ(Scalar::parse("0x10").bits(DType::I64), 16u);
  EXPECT_EQ(Scalar::parse("-0x80").bits(DType::I8), 0x80u);
}

// Found by fuzz/fuzz_plan: `fvk plan --shape 4294967296,4294967296,4294967296` without --strides asked
// dense_strides for strides beyond 64 bits, a signed overflow. Both orders refuse such a shape.
TEST(ViewLayouts, NoDenseStridesBeyondSixtyThreeBits) {
  const Shape huge{std::int64_t{1} << 32, std::int64_t{1} << 32, std::int64_t{1} << 32};
  EXPECT_THAT(expect_error(ErrorCode::IndexOverflow, [&] { (void)dense_strides(huge); }),
              HasSubstr("no dense strides"));
  expect_error(ErrorCode::IndexOverflow, [&] { (void)column_major_strides(huge); });
  expect_error(ErrorCode::IndexOverflow, [&] { (void)ViewLayout::dense(DType::U8, huge); });
  // The largest strides that fit: 2^62 and 2^31 * 2^31 elements, and 0 dims counted as 1.
  EXPECT_EQ(dense_strides({2, std::int64_t{1} << 31, std::int64_t{1} << 31}),
            (Strides{std::int64_t{1} << 62, std::int64_t{1} << 31, 1}));
  EXPECT_EQ(column_major_strides({0, std::int64_t{1} << 62, 3}), (Strides{1, 1, std::int64_t{1} << 62}));
}

// HostTensor's element access stays inside its data: past the end, or an element type wider than
// what is left, is InvalidArgument, not a read or write out of bounds.
TEST(HostTensorAccess, StaysInsideTheData) {
  HostTensor t = HostTensor::zeros(DType::F16, {2, 3});
  t.set<std::uint16_t>(5, 0x3C00);
  EXPECT_EQ(t.get<std::uint16_t>(5), 0x3C00);
  EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [&] { t.set<std::uint16_t>(6, 1); }),
              HasSubstr("HostTensor::set: element 6 of 2 bytes lies outside the 12 bytes of a f16 tensor of shape"));
  EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [&] { (void)t.get<std::uint64_t>(1); }),
              HasSubstr("HostTensor::get: element 1 of 8 bytes"));
  EXPECT_EQ(t.get<std::uint32_t>(2), 0x3C000000u);  // raw bits of another width, inside
  expect_error(ErrorCode::InvalidArgument, [&] { (void)HostTensor{}.get<float>(0); });  // no data at all
}

// An out-of-range fill names the value it was given, for every integer width.
TEST(ScalarText, OutOfRangeNamesTheValue) {
  EXPECT_THAT(expect_error(ErrorCode::ValueOutOfRange, [] { Scalar::parse("9223372036854775808").bits(DType::I64); }),
              HasSubstr("fill value 9223372036854775808 is outside the range of i64"));
  EXPECT_THAT(expect_error(ErrorCode::ValueOutOfRange, [] { Scalar::parse("-129").bits(DType::I8); }),
              HasSubstr("-129"));
  EXPECT_THAT(expect_error(ErrorCode::ValueOutOfRange, [] { Scalar::parse("256").bits(DType::U8); }), HasSubstr("256"));
}

// what() leads with the code; message() is the text alone, for callers that add to it.
TEST(ErrorText, MessageIsWhatWithoutTheCode) {
  const Error e(ErrorCode::NoKernel, "no kernel for this");
  EXPECT_STREQ(e.what(), "NoKernel: no kernel for this");
  EXPECT_EQ(e.message(), "no kernel for this");
  EXPECT_EQ(Error(ErrorCode::Internal, "").message(), "");
}

// A value past the largest finite number of its dtype is refused, not rounded to infinity: past
// f32's (1e39) by the dtype check, and past double's (1e400, which strtod turns into infinity) by the
// parse, for every float dtype. "inf" itself is taken; a value under the smallest subnormal rounds
// to zero.
TEST(ScalarText, ValuesPastTheLargestFiniteAreRefused) {
  EXPECT_THAT(expect_error(ErrorCode::ValueOutOfRange, [] { Scalar::parse("1e39").bits(DType::F32); }),
              HasSubstr("round to infinity"));
  for (const char* text : {"1e400", "-1e400", "0x1p2000"})
    EXPECT_THAT(expect_error(ErrorCode::ValueOutOfRange, [&] { Scalar::parse(text); }),
                HasSubstr(fmt::format("value '{}' is beyond the largest finite number", text)));
  EXPECT_EQ(Scalar::parse("inf").bits(DType::F32), 0x7F800000u);
  EXPECT_EQ(Scalar::parse("-inf").bits(DType::F64), 0xFFF0000000000000u);
  EXPECT_EQ(Scalar::parse("1e-400").bits(DType::F64), 0u);
  EXPECT_EQ(Scalar::parse("1e308").bits(DType::F64), std::bit_cast<std::uint64_t>(1e308));
}

// reach() checks the form itself: a stride list shorter than the shape is an error, not a read past
// the list's end.
TEST(ViewLayouts, ReachChecksTheFormFirst) {
  ViewLayout v = ViewLayout::dense(DType::F32, {2, 3, 8, 8});
  v.strides = {1};
  EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [&] { (void)v.reach(); }), HasSubstr("1 strides"));
  v = ViewLayout::dense(DType::F32, {std::numeric_limits<std::int64_t>::min()});
  expect_error(ErrorCode::InvalidArgument, [&] { (void)v.reach(); });
  v = ViewLayout{DType::F32, {2, 3}, {-3, -1}, std::numeric_limits<std::int64_t>::max()};
  EXPECT_EQ(v.reach().second, std::numeric_limits<std::int64_t>::max());
  v.strides = {3, 1};
  expect_error(ErrorCode::IndexOverflow, [&] { (void)v.reach(); });
}

}  // namespace
}  // namespace fvk::testing
