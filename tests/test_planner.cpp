// The planner: kernels chosen from the contracts, Contiguize inserted exactly where a kernel needs a
// dense input, the determinism policy, measured costs preferred, impossible requests refused with
// the constraint no candidate met; and every op on strided, transposed, sliced-with-offset,
// broadcast and reversed views giving exactly what the dense path gives on the realized input.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "expect_error.hpp"
#include "fkc/catalog.hpp"
#include "fvk/batch.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "gpu_fixture.hpp"
#include "judge/cost_table.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"
#include "planner/planner.hpp"
#include "reference/random_tensor.hpp"
#include "reference/reference.hpp"
#include "runtime/buffer.hpp"
#include "runtime/device.hpp"

namespace fvk::testing {
namespace {

using planner::OpRequest;
using planner::Request;
using ::testing::HasSubstr;
using ::testing::Not;

Request pad_request(PadMode mode, ViewLayout in, std::vector<std::int64_t> left, std::vector<std::int64_t> right,
                    PlanPolicy policy = PlanPolicy::DeterministicOnly) {
  return Request{OpRequest::Pad,      mode,  {std::move(in)}, PadSpec{mode, std::move(left), std::move(right)},
                 Scalar::from_int(0), policy};
}

Request backward_request(PadMode mode, ViewLayout grad_out, PlanPolicy policy) {
  const auto rank = grad_out.shape.size();
  return Request{
      OpRequest::PadBackward, mode,
      {std::move(grad_out)},  PadSpec{mode, std::vector<std::int64_t>(rank, 1), std::vector<std::int64_t>(rank, 1)},
      Scalar::from_int(0),    policy};
}

// Replicate pads of 100 on two outer axes of an f32 [101, 101, 8] grad_out: sums of 10201 terms,
// more loop iterations than lavapipe runs in one invocation.
Request long_replicate_sums(PlanPolicy policy) {
  return Request{OpRequest::PadBackward,
                 PadMode::Replicate,
                 {ViewLayout::dense(DType::F32, {101, 101, 8})},
                 PadSpec{PadMode::Replicate, {0, 0, 0}, {100, 100, 0}},
                 Scalar::from_int(0),
                 policy};
}

TEST(Planner, DenseInputHasNoContiguizeStep) {
  for (auto mode : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate}) {
    const auto p =
        planner::plan(pad_request(mode, ViewLayout::dense(DType::F16, {2, 3, 8, 8}), {0, 0, 2, 2}, {0, 0, 2, 2}));
    ASSERT_EQ(p.steps.size(), 1u);
    EXPECT_EQ(p.kernel_step().kernel, fmt::format("pad_{}_b2", mode == PadMode::Constant ? "const" : name(mode)));
    EXPECT_EQ(p.out_shape, (Shape{2, 3, 12, 12}));
    EXPECT_GT(p.cost.bytes_moved, 0);
  }
}

TEST(Planner, OneContiguizePerAwkwardInput) {
  const ViewLayout transposed{DType::F32, {4, 6}, {1, 4}, 0};
  const auto p = planner::plan(pad_request(PadMode::Reflect, transposed, {1, 1}, {1, 1}));
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].kind, planner::Step::Kind::Contiguize);
  EXPECT_EQ(p.steps[0].kernel, "contiguize_b4");
  EXPECT_EQ(p.steps[0].input, 0);
  EXPECT_EQ(p.kernel_step().kernel, "pad_reflect_b4");
  // The total is the sum of the steps.
  EXPECT_DOUBLE_EQ(p.cost.bytes_moved, p.steps[0].cost.bytes_moved + p.steps[1].cost.bytes_moved);
  EXPECT_DOUBLE_EQ(p.steps[0].cost.bytes_moved, 2.0 * 24 * 4);  // contiguize_b4: 2 * n * dtype_bytes

  const ViewLayout mask_broadcast{DType::Bool, {4, 6}, {0, 1}, 0};
  Request mf{OpRequest::MaskedFill,
             PadMode::Constant,
             {ViewLayout::dense(DType::I8, {4, 6}), mask_broadcast},
             {},
             Scalar::from_int(3),
             PlanPolicy::DeterministicOnly};
  auto q = planner::plan(mf);
  ASSERT_EQ(q.contiguize_steps(), 1u);
  EXPECT_EQ(q.steps[0].input, 1);
  EXPECT_EQ(q.steps[0].kernel, "contiguize_b1");
  mf.inputs[0] = ViewLayout{DType::I8, {4, 6}, {6, 1}, 2};  // both awkward: two
  EXPECT_EQ(planner::plan(mf).contiguize_steps(), 2u);
}

TEST(Planner, DeterministicOnlyNeverPicksANondeterministicKernel) {
  for (auto policy :
       {PlanPolicy::DeterministicOnly, PlanPolicy::AllowNondeterministic, PlanPolicy::PreferNondeterministic})
    for (auto mode : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate})
      for (auto dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
        const auto p = planner::plan(backward_request(mode, ViewLayout::dense(dtype, {5, 7}), policy));
        const auto det = p.kernel_step().contract->determinism;
        if (policy == PlanPolicy::DeterministicOnly) {
          EXPECT_EQ(det, fkc::Determinism::Bitwise) << p.kernel_step().kernel;
        }
        if (policy == PlanPolicy::AllowNondeterministic) {  // formula costs: the gather moves fewer bytes
          EXPECT_EQ(det, fkc::Determinism::Bitwise) << p.kernel_step().kernel;
        }
        if (policy == PlanPolicy::PreferNondeterministic && mode != PadMode::Constant) {
          EXPECT_EQ(det, fkc::Determinism::Nondeterministic) << p.kernel_step().kernel;
        }
      }
}

TEST(Planner, MeasuredCostsWinOverFormulas) {
  DeviceInfo device;
  device.name = "test device";
  device.shader_float64 = device.shader_int64 = device.buffer_int64_atomics = true;
  device.subgroup_ballot = device.subgroup_shuffle = true;  // else the f32 gather is its portable build
  judge::CostTable table;
  const auto& det = fkc::require_contract("pad_backward_reflect_det_f32");
  const auto& atomic = fkc::require_contract("pad_backward_reflect_f32");
  table.put(device, det.kernel, judge::MeasuredCost{fkc::revision_hash(det), 5000, 1, {}});
  table.put(device, atomic.kernel, judge::MeasuredCost{fkc::revision_hash(atomic), 100, 100, {}});
  const planner::PlanContext ctx{&device, &table};
  const auto grad = ViewLayout::dense(DType::F32, {64, 64});
  const auto allow = planner::plan(backward_request(PadMode::Reflect, grad, PlanPolicy::AllowNondeterministic), ctx);
  EXPECT_EQ(allow.kernel_step().kernel, atomic.kernel);
  ASSERT_TRUE(allow.cost.measured_ns.has_value());
  EXPECT_EQ(allow.kernel_step().cost.source, planner::CostSource::Measured);
  const auto strict = planner::plan(backward_request(PadMode::Reflect, grad, PlanPolicy::DeterministicOnly), ctx);
  EXPECT_EQ(strict.kernel_step().kernel, det.kernel);
  // A measurement of another revision is stale: the formula is used.
  judge::CostTable stale;
  stale.put(device, det.kernel, judge::MeasuredCost{"0000000000000000", 1, 1, {}});
  const auto p = planner::plan(backward_request(PadMode::Reflect, grad, PlanPolicy::DeterministicOnly),
                               planner::PlanContext{&device, &stale});
  EXPECT_EQ(p.kernel_step().cost.source, planner::CostSource::Formula);
}

TEST(Planner, DevicesThatEndLongLoopsGetTheAtomicKernelForLongSums) {
  // Replicate pads of 100 on two outer axes: sums of 10201 terms, more loop iterations than
  // lavapipe runs in one invocation. There the deterministic kernel is out: the atomic one where the
  // policy allows it, else NoKernel naming the limit. A device without the limit keeps the gather.
  const auto request = long_replicate_sums;
  DeviceInfo limited;
  limited.name = "a device that ends long loops";
  limited.max_loop_iterations = 65535;
  limited.subgroup_ballot = limited.subgroup_shuffle = true;
  DeviceInfo unlimited = limited;
  unlimited.max_loop_iterations = 0;
  EXPECT_EQ(planner::plan(request(PlanPolicy::AllowNondeterministic), {&limited, nullptr}).kernel_step().kernel,
            "pad_backward_replicate_f32");
  EXPECT_EQ(planner::plan(request(PlanPolicy::AllowNondeterministic), {&unlimited, nullptr}).kernel_step().kernel,
            "pad_backward_replicate_det_f32");
  const auto msg = expect_error(ErrorCode::NoKernel, [&] {
    planner::plan(request(PlanPolicy::DeterministicOnly), {&limited, nullptr});
  });
  EXPECT_THAT(msg, HasSubstr("ends loops after 65535"));
  // The way round: the policy that takes the atomic kernel, named.
  EXPECT_THAT(msg, HasSubstr("a policy that allows nondeterministic kernels (allow-nondeterministic, "
                             "prefer-nondeterministic) takes pad_backward_replicate_f32"));
  // Short sums stay on the deterministic kernel on the limited device too.
  const Request small{OpRequest::PadBackward,
                      PadMode::Replicate,
                      {ViewLayout::dense(DType::F32, {9, 9, 8})},
                      PadSpec{PadMode::Replicate, {0, 0, 0}, {4, 4, 0}},
                      Scalar::from_int(0),
                      PlanPolicy::DeterministicOnly};
  EXPECT_EQ(planner::plan(small, {&limited, nullptr}).kernel_step().kernel, "pad_backward_replicate_det_f32");
}

TEST(Planner, ImpossibleRequestsSayWhichConstraintFailed) {
  const ViewLayout rank9 = ViewLayout::dense(DType::F32, {1, 1, 1, 1, 1, 1, 1, 1, 2});
  const auto rank_msg =
      expect_error(ErrorCode::NoKernel, [&] { planner::plan(pad_request(PadMode::Constant, rank9, {}, {})); });
  EXPECT_THAT(rank_msg, HasSubstr("rank 9"));
  EXPECT_THAT(rank_msg, HasSubstr("1..=8"));

  const auto dtype_msg = expect_error(ErrorCode::NoKernel, [&] {
    planner::plan(
        backward_request(PadMode::Reflect, ViewLayout::dense(DType::I32, {4, 4}), PlanPolicy::AllowNondeterministic));
  });
  EXPECT_THAT(dtype_msg, HasSubstr("dtype"));
  EXPECT_THAT(dtype_msg, HasSubstr("i32"));

  Request mf{OpRequest::MaskedFill,
             PadMode::Constant,
             {ViewLayout::dense(DType::F32, {4}), ViewLayout::dense(DType::U8, {4})},
             {},
             Scalar::from_int(0),
             PlanPolicy::DeterministicOnly};
  // The mask's own rule comes before the candidates, so the refusal names the mask, not a dtype
  // that no kernel takes.
  EXPECT_THAT(expect_error(ErrorCode::DTypeNotAccepted, [&] { planner::plan(mf); }), HasSubstr("mask has dtype u8"));
  mf.inputs[1] = ViewLayout::dense(DType::Bool, {5});
  EXPECT_THAT(expect_error(ErrorCode::ShapeMismatch, [&] { planner::plan(mf); }), HasSubstr("mask shape [5]"));

  // A device without a kernel's features (DeviceInfo's are all off): NoKernel, naming the feature.
  // The f64 backwards need shaderFloat64.
  DeviceInfo bare;
  bare.name = "no optional features";
  const auto feature_msg = expect_error(ErrorCode::NoKernel, [&] {
    planner::plan(
        backward_request(PadMode::Replicate, ViewLayout::dense(DType::F64, {4, 4}), PlanPolicy::AllowNondeterministic),
        planner::PlanContext{&bare, nullptr});
  });
  EXPECT_THAT(feature_msg, HasSubstr("shaderFloat64"));
  // Under deterministic-only, the policy that allows the atomic kernels is named only where one of
  // them passed every other check (DevicesThatEndLongLoops...): not where they too lack the dtype or
  // the device's features.
  for (const auto& [request, device] : {
           std::pair{
               backward_request(PadMode::Reflect, ViewLayout::dense(DType::I32, {4, 4}), PlanPolicy::DeterministicOnly),
               static_cast<const DeviceInfo*>(nullptr)},
           std::pair{backward_request(PadMode::Replicate, ViewLayout::dense(DType::F64, {4, 4}),
                                      PlanPolicy::DeterministicOnly),
                     static_cast<const DeviceInfo*>(&bare)},
       })
    EXPECT_THAT(expect_error(ErrorCode::NoKernel,
                             [&] {
                               planner::plan(request, planner::PlanContext{device, nullptr});
                             }),
                Not(HasSubstr("a policy that allows nondeterministic kernels")));

  // The op's own rules still apply once a kernel is found.
  expect_error(ErrorCode::ReflectPadTooLarge,
               [&] { planner::plan(pad_request(PadMode::Reflect, ViewLayout::dense(DType::F32, {3}), {3}, {0})); });
}

// The portable builds (no subgroup operations, no f64 atomic add) stand in for the fast ones only on
// a device that cannot run those, whatever the costs say; the wrappers choose the same kernel.
TEST(Planner, PortableBuildsOnlyWhereTheFastOnesCannotRun) {
  DeviceInfo bare;
  bare.name = "no subgroup operations, no f64 atomic add";
  bare.shader_float64 = bare.shader_int64 = bare.buffer_int64_atomics = true;
  DeviceInfo full = bare;
  full.name = "subgroup operations and f64 atomic add";
  full.subgroup_ballot = full.subgroup_shuffle = true;
  full.buffer_float64_atomic_add = true;
  // A table that measures every portable build far cheaper than its fast build.
  judge::CostTable table;
  for (const auto& c : fkc::shipped_contracts().contracts) {
    const bool portable = !ops::fast_build_of(c.kernel).empty();
    table.put(full, c.kernel, judge::MeasuredCost{fkc::revision_hash(c), portable ? 1.0 : 1e6, 1e6, {}});
  }
  const auto u8 = ViewLayout::dense(DType::U8, {8, 40});
  const auto f32 = ViewLayout::dense(DType::F32, {8, 40});
  const auto f64 = ViewLayout::dense(DType::F64, {8, 40});
  const struct {
    Request request;
    const char* fast;
  } cases[] = {
      {pad_request(PadMode::Reflect, u8, {0, 3}, {0, 3}), "pad_reflect_b1"},
      {pad_request(PadMode::Constant, f32, {1, 1}, {1, 1}), "pad_const_b4"},
      {backward_request(PadMode::Constant, f32, PlanPolicy::DeterministicOnly), "pad_backward_const_b4"},
      {backward_request(PadMode::Replicate, f32, PlanPolicy::DeterministicOnly), "pad_backward_replicate_det_f32"},
      {backward_request(PadMode::Reflect, f64, PlanPolicy::PreferNondeterministic), "pad_backward_reflect_f64"},
      {backward_request(PadMode::Replicate, f64, PlanPolicy::PreferNondeterministic), "pad_backward_replicate_f64"},
  };
  for (const auto& c : cases) {
    const std::string portable = ops::portable_build_name(c.fast);
    EXPECT_EQ(planner::plan(c.request, {&full, &table}).kernel_step().kernel, c.fast);
    EXPECT_EQ(planner::plan(c.request, {&bare, nullptr}).kernel_step().kernel, portable);
    EXPECT_EQ(ops::fast_build_of(portable), c.fast);
    // The wrappers choose the same.
    const auto wrapper = [&](const DeviceInfo& d) {
      const auto dtype = c.request.inputs.front().dtype;
      return c.request.op == OpRequest::Pad
                 ? ops::pad_kernel(d, c.request.mode, dtype)
                 : ops::pad_backward_kernel(d, c.request.mode, dtype,
                                            c.request.policy == PlanPolicy::PreferNondeterministic
                                                ? BackwardAlgorithm::Atomic
                                                : BackwardAlgorithm::Deterministic);
    };
    EXPECT_EQ(wrapper(full), c.fast);
    EXPECT_EQ(wrapper(bare), portable);
  }
  // A device that ends long loops refuses the long deterministic sums: the refusal names that limit,
  // not the portable build the device does not need.
  DeviceInfo limited = full;
  limited.max_loop_iterations = 65535;
  const auto msg = expect_error(ErrorCode::NoKernel, [&] {
    planner::plan(long_replicate_sums(PlanPolicy::DeterministicOnly), {&limited, nullptr});
  });
  EXPECT_THAT(msg, HasSubstr("ends loops after 65535"));
  EXPECT_THAT(msg, Not(HasSubstr("portable")));
  EXPECT_EQ(ops::fast_build_of("pad_reflect_b1"), "");
  EXPECT_EQ(ops::fast_build_of("pad_backward_reflect_det_portable_f32_x"), "");
}

// ---- every op on awkward views == the dense path on the realized input ----------------------

struct Layout {
  std::string name;
  Shape base;
  std::function<TensorView(const TensorView&)> make;
};

std::vector<Layout> layouts() {
  return {
      {"transposed",
       {6, 5},
       [](const TensorView& v) {
         return v.permute({1, 0});
       }},
      {"strided", {5, 12}, [](const TensorView& v) { return v.slice(1, 0, 12, 2); }},
      {"sliced_offset", {8, 9}, [](const TensorView& v) { return v.slice(0, 2, 7).slice(1, 1, 7); }},
      {"broadcast", {5, 1}, [](const TensorView& v) { return v.expand(1, 6); }},
      {"reversed", {5, 6}, [](const TensorView& v) { return v.flip(0); }},
  };
}

class PlannedOps : public GpuTest {
 protected:
  std::mt19937_64 rng{7};

  // A random base tensor and a view of it; `realized` is the view made dense on the host.
  TensorView make_view(const Layout& l, DType dtype, bool values, HostTensor& realized) {
    const HostTensor host = values ? ref::random_values(dtype, l.base, rng) : ref::random_bits(dtype, l.base, rng);
    const TensorView v = l.make(TensorView(ctx().upload(host)));
    realized = ref::contiguize(host.data, dtype, v.shape(), v.strides(), v.offset());
    return v;
  }
  void expect_same(const Tensor& got, const Tensor& want, const std::string& what) {
    EXPECT_EQ(ctx().download(got).data, ctx().download(want).data) << what;
    EXPECT_EQ(got.shape(), want.shape()) << what;
  }
};

TEST_F(PlannedOps, PadOnEveryLayoutMatchesTheDensePath) {
  for (const auto& l : layouts())
    for (auto mode : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate})
      for (auto dtype : {DType::U8, DType::F16, DType::F32, DType::F64}) {
        HostTensor realized;
        const TensorView v = make_view(l, dtype, false, realized);
        const std::int64_t pads[] = {2, 1, 1, 3};
        const PadSpec spec = PadSpec::from_torch(mode, 2, pads);
        const Scalar fill = Scalar::from_int(5);
        const Tensor got = pad(ctx(), v, spec, fill);
        const Tensor want = pad(ctx(), ctx().upload(realized), spec, fill);
        expect_same(got, want, fmt::format("pad {} {} {}", name(mode), name(dtype), l.name));
      }
}

TEST_F(PlannedOps, PadBackwardOnEveryLayoutMatchesTheDensePath) {
  for (const auto& l : layouts())
    for (auto mode : {PadMode::Constant, PadMode::Reflect, PadMode::Replicate})
      for (auto dtype : {DType::F32, DType::BF16, DType::F64}) {
        if (dtype == DType::F64 && !ctx().device_info().shader_float64 && mode != PadMode::Constant) continue;
        HostTensor realized;
        const TensorView v = make_view(l, dtype, true, realized);
        const PadSpec spec{mode, {1, 0}, {1, 2}};
        const Tensor got = pad_backward(ctx(), v, spec);
        const Tensor want = pad_backward(ctx(), ctx().upload(realized), spec);
        expect_same(got, want, fmt::format("pad_backward {} {} {}", name(mode), name(dtype), l.name));
      }
}

TEST_F(PlannedOps, MaskedFillOnEveryLayoutMatchesTheDensePath) {
  for (const auto& l : layouts())
    for (auto dtype : {DType::I8, DType::I16, DType::F32, DType::U64}) {
      HostTensor realized_in, realized_mask;
      const TensorView in = make_view(l, dtype, false, realized_in);
      // A mask of the same layout (so the view's shape) and a dense one.
      const HostTensor mask_host = ref::random_mask(l.base, 0.4, rng);
      const TensorView mask = l.make(TensorView(ctx().upload(mask_host)));
      realized_mask = ref::contiguize(mask_host.data, DType::Bool, mask.shape(), mask.strides(), mask.offset());
      const Tensor got = masked_fill(ctx(), in, mask, Scalar::from_int(-1 * (dtype != DType::U64)));
      const Tensor want = masked_fill(ctx(), ctx().upload(realized_in), ctx().upload(realized_mask),
                                      Scalar::from_int(-1 * (dtype != DType::U64)));
      expect_same(got, want, fmt::format("masked_fill {} {}", name(dtype), l.name));
      const Tensor dense_mask = ctx().upload(realized_mask);
      expect_same(masked_fill(ctx(), in, TensorView(dense_mask), Scalar::from_int(0)),
                  masked_fill(ctx(), ctx().upload(realized_in), dense_mask, Scalar::from_int(0)),
                  fmt::format("masked_fill {} {} dense mask", name(dtype), l.name));
    }
}

TEST_F(PlannedOps, ChainedOpsInOneBatchAreOrderedAndTemporariesReused) {
  const HostTensor host = ref::random_bits(DType::F32, {6, 8}, rng);
  const Tensor base = ctx().upload(host);
  const TensorView t = TensorView(base).permute({1, 0});
  auto& pool = ctx().runtime().temp_pool();
  Batch b(ctx());
  const PadSpec spec{PadMode::Replicate, {1, 1}, {1, 1}};
  std::vector<Tensor> outs;
  for (int i = 0; i < 10; ++i) outs.push_back(b.pad(t, spec));
  const auto allocations_after_first = pool.allocations();
  // y feeds the next op: the batch must order it after the pad that writes y.
  const Tensor y = b.pad(TensorView(outs[0]).flip(1), spec);
  const Tensor mask = ctx().upload(ref::random_mask(y.shape(), 0.5, rng));
  const Tensor z = b.masked_fill(y, mask, Scalar::from_double(2.5));
  b.submit();
  EXPECT_EQ(b.ops(), 12u);
  EXPECT_EQ(b.contiguize_steps(), 11u);
  EXPECT_LE(pool.allocations(), allocations_after_first + 1);  // the 10 transposes share a temporary
  EXPECT_GE(pool.reuses(), 9u);

  const HostTensor realized = ref::contiguize(host.data, DType::F32, t.shape(), t.strides(), t.offset());
  const Tensor want_x = pad(ctx(), ctx().upload(realized), spec);
  for (const auto& o : outs) expect_same(o, want_x, "batched pad");
  const HostTensor x_host = ctx().download(want_x);
  const TensorView xf = TensorView(want_x).flip(1);
  const Tensor want_y =
      pad(ctx(), ctx().upload(ref::contiguize(x_host.data, DType::F32, xf.shape(), xf.strides(), xf.offset())), spec);
  expect_same(y, want_y, "pad of a flipped batch output");
  expect_same(z, masked_fill(ctx(), want_y, mask, Scalar::from_double(2.5)), "masked_fill of a batch output");
}

// A tensor or contiguous view at the start of a storage larger than maxStorageBufferRange: the ops
// check the bytes of the op's own tensors against the limit, so they must bind those bytes only, not
// the whole allocation (the validation layer reports a larger range; a driver may fault on it).
TEST_F(PlannedOps, TensorsOnALargerStorageBindOnlyTheirOwnBytes) {
  const std::uint64_t range = ctx().device_info().max_storage_buffer_range;
  if (range > (256ull << 20)) GTEST_SKIP() << "needs a device whose maxStorageBufferRange is at most 256 MiB";
  HostTensor big = HostTensor::zeros(DType::F32, {static_cast<std::int64_t>(range / 4 + 16)});
  const HostTensor head = ref::random_bits(DType::F32, {4, 4}, rng);
  std::copy(head.data.begin(), head.data.end(), big.data.begin());
  const Tensor base = ctx().upload(big);
  big = HostTensor{};
  const Tensor small_head = ctx().upload(head);
  const Tensor small(base.storage(), DType::F32, {4, 4});    // the public constructor: any larger storage
  const TensorView view = TensorView(base).slice(0, 0, 16);  // contiguous, offset 0: no Contiguize step
  const PadSpec spec{PadMode::Reflect, {1, 2}, {2, 1}};
  expect_same(pad(ctx(), small, spec), pad(ctx(), small_head, spec), "pad of a tensor on a larger storage");
  const PadSpec flat{PadMode::Replicate, {3}, {2}};
  expect_same(pad(ctx(), view, flat), pad(ctx(), TensorView(Tensor(small_head.storage(), DType::F32, {16})), flat),
              "planned pad of a view at the start of a larger storage");
  for (auto algorithm : {BackwardAlgorithm::Deterministic, BackwardAlgorithm::Atomic})
    expect_same(pad_backward(ctx(), small, PadSpec{PadMode::Replicate, {1, 0}, {0, 1}}, algorithm),
                pad_backward(ctx(), small_head, PadSpec{PadMode::Replicate, {1, 0}, {0, 1}}, algorithm),
                "pad_backward of a tensor on a larger storage");
  const Tensor mask = ctx().upload(ref::random_mask({16}, 0.5, rng));
  expect_same(masked_fill(ctx(), view, TensorView(mask), Scalar::from_int(3)),
              masked_fill(ctx(), TensorView(Tensor(small_head.storage(), DType::F32, {16})), TensorView(mask),
                          Scalar::from_int(3)),
              "planned masked_fill of a view at the start of a larger storage");
}

}  // namespace
}  // namespace fvk::testing
