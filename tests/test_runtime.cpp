// The runtime layer: SPIR-V reflection of the embedded kernels, and the validation-layer plumbing the
// whole suite relies on (a planted API misuse must be reported).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <thread>

#include "expect_error.hpp"
#include "fvk/context.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "gpu_fixture.hpp"
#include "ops/shape_constant.hpp"
#include "ops/targets.hpp"
#include "reference/random_tensor.hpp"
#include "reference/reference.hpp"
#include "runtime/buffer.hpp"
#include "runtime/device.hpp"
#include "runtime/dispatch_grid.hpp"
#include "runtime/embedded.hpp"
#include "runtime/spirv_reflect.hpp"
#include "runtime/stream.hpp"
#include "runtime/suballocator.hpp"
#include "runtime/worker_thread.hpp"
#include "selftest/harness.hpp"

namespace fvk::testing {
namespace {

using ::testing::HasSubstr;

TEST(SpirvReflect, KernelsHaveThreeBindingsAndTheirPushConstantBlocks) {
  int seen = 0;
  for (const auto& k : embedded::table()) {
    const auto iface = rt::reflect_passes(k.passes);
    // pad.comp (forward and the constant backward) runs workgroups of 128 for 2-byte elements.
    const bool gather = k.name.rfind("pad_", 0) == 0 &&
                        (k.name.find("backward") == std::string::npos || k.name.find("const") != std::string::npos);
    const bool two_bytes = k.name.size() > 3 && k.name.compare(k.name.size() - 3, 3, "_b2") == 0;
    EXPECT_EQ(iface.local_size_x, gather && two_bytes ? 128u : 256u) << k.name;
    const std::vector<std::uint32_t> want =
        k.name == "copy_b4" ? std::vector<std::uint32_t>{0, 1} : std::vector<std::uint32_t>{0, 1, 2};
    EXPECT_EQ(iface.storage_buffer_bindings, want) << k.name;
    if (k.name.rfind("pad_", 0) == 0) {
      // pad.comp adds two words for its edge pass.
      EXPECT_EQ(iface.push_constant_bytes, gather ? 28u : 20u) << k.name;
      ++seen;
    }
    if (k.name.rfind("masked_fill_", 0) == 0) {
      EXPECT_EQ(iface.push_constant_bytes, 16u) << k.name;
    }
  }
  EXPECT_GE(seen, 32);
}

// Each pass is its own module, compiled with FVK_PASS: pad.comp's kernels have passes 0-9, the
// atomic backward 0-3, the deterministic one 0-12, the rest one. The modules of a kernel differ (a
// shader that ignored FVK_PASS would give equal ones) but where the passes do the same: in the
// deterministic backward, pass 11 is pass 10 on replicate pads (they differ in reflect's mirrors),
// and pass 8 is pass 7 in the portable builds (without the subgroup queue). Every module keeps the
// kernel's bindings (the layout shared by the passes would otherwise hold one the module lacks).
TEST(SpirvReflect, EveryPassHasItsOwnModule) {
  for (const auto& k : embedded::table()) {
    const std::string name(k.name);
    const bool pad = name.starts_with("pad_") &&
                     (name.find("backward") == std::string::npos || name.starts_with("pad_backward_const"));
    const bool det = name.find("_det_") != std::string::npos;
    const bool atomic = name.starts_with("pad_backward_") && !pad && !det;
    const std::size_t want = pad ? 10 : det ? 13 : atomic ? 4 : 1;
    ASSERT_EQ(k.passes.size(), want) << name;
    const auto whole = rt::reflect_passes(k.passes);
    for (std::size_t p = 0; p < k.passes.size(); ++p) {
      EXPECT_EQ(rt::reflect_spirv(k.passes[p]).storage_buffer_bindings, whole.storage_buffer_bindings)
          << name << " pass " << p;
      for (std::size_t q = 0; q < p; ++q) {
        const bool same_work = det && ((q == 10 && p == 11 && name.find("replicate") != std::string::npos) ||
                                       (q == 7 && p == 8 && name.find("portable") != std::string::npos));
        EXPECT_EQ(std::equal(k.passes[p].begin(), k.passes[p].end(), k.passes[q].begin(), k.passes[q].end()), same_work)
            << name << ": passes " << q << " and " << p;
      }
    }
  }
}

embedded::Spirv first_module(std::string_view kernel) {
  const auto& t = embedded::table();
  const auto it = std::find_if(t.begin(), t.end(), [&](const auto& k) { return k.name == kernel; });
  if (it == t.end()) throw std::runtime_error("no kernel " + std::string(kernel));
  return it->passes[0];
}

// One layout serves all of a kernel's passes: the union of their bindings and the largest
// push-constant block (here of two kernels' modules, whose bindings and blocks differ).
TEST(SpirvReflect, PassesShareTheUnionOfTheirInterfaces) {
  const auto copy = rt::reflect_spirv(first_module("copy_b4"));
  const auto det = rt::reflect_spirv(first_module("pad_backward_reflect_det_f32"));
  ASSERT_EQ(copy.storage_buffer_bindings, (std::vector<std::uint32_t>{0, 1}));
  ASSERT_EQ(det.storage_buffer_bindings, (std::vector<std::uint32_t>{0, 1, 2}));
  ASSERT_NE(copy.push_constant_bytes, det.push_constant_bytes);
  const std::vector<embedded::Spirv> both = {first_module("copy_b4"), first_module("pad_backward_reflect_det_f32")};
  const auto u = rt::reflect_passes(both);
  EXPECT_EQ(u.storage_buffer_bindings, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(u.push_constant_bytes, std::max(copy.push_constant_bytes, det.push_constant_bytes));
  EXPECT_EQ(u.local_size_x, 256u);
  // A kernel without modules is not reflected.
  expect_error(ErrorCode::Internal, [] { rt::reflect_passes({}); });
}

// The passes of a kernel share one pipeline layout but each dispatches with its own workgroup size:
// pad.comp's group pass (8) runs workgroups of 64, its other passes of 256 (1-byte elements).
TEST(Pipelines, EachPassDispatchesItsOwnWorkgroupSize) {
  auto& device = shared_context().runtime();
  EXPECT_EQ(rt::reflect_spirv(first_module("pad_const_b1")).local_size_x, 256u);
  EXPECT_EQ(device.kernel("pad_const_b1", 0).interface.local_size_x, 256u);
  EXPECT_EQ(device.kernel("pad_const_b1", 8).interface.local_size_x, 64u);
  EXPECT_EQ(device.kernel("pad_const_b1", 5).interface.local_size_x, 256u);
}

TEST(Pipelines, APassTheKernelLacksIsAnInternalError) {
  auto& device = shared_context().runtime();
  EXPECT_NO_THROW(device.kernel("pad_backward_replicate_det_f32", 12));
  EXPECT_THROW(device.kernel("copy_b4", 1), Error);  // a kernel without passes has pass 0 only
  // Pass 13 of a kernel with passes 0-12 is not built.
  EXPECT_THAT(expect_error(ErrorCode::Internal, [&] { device.kernel("pad_backward_replicate_det_f32", 13); }),
              HasSubstr("passes 0 to 12"));
}

TEST(SpirvReflect, RejectsGarbage) {
  const std::uint32_t words[] = {1, 2, 3, 4, 5, 6};
  EXPECT_THROW(rt::reflect_spirv(words), std::exception);
}

// Session 63's hunt (ASan): an instruction shorter than the words read from it was read past its
// end (here the last one, OpTypeInt with 2 words of its 3): refused, naming it.
TEST(SpirvReflect, RejectsInstructionsShorterThanTheirOperands) {
  const std::vector<std::uint32_t> words = {0x07230203, 0x00010300, 0, 8, 0, (2u << 16) | 21u, 7};
  EXPECT_THAT(expect_error(ErrorCode::Internal, [&] { rt::reflect_spirv(words); }),
              HasSubstr("(opcode 21) has 2 words; it needs 3"));
}

// Whether the suite runs with the validation layer (FVK_VALIDATION=1, which CTest sets).
bool validation_requested() {
  const char* v = std::getenv("FVK_VALIDATION");
  return v && std::string(v) == "1";
}

TEST(Validation, PlantedMisuseIsReported) {
  if (!validation_requested()) GTEST_SKIP() << "FVK_VALIDATION=1 is not set: the validation layer is off";
  Context ctx;  // its own device, so the planted message does not fail other tests
  ASSERT_TRUE(ctx.validation_messages().empty());
  // A buffer with no usage flags breaks VUID-VkBufferCreateInfo-usage-requiredbitmask; drivers accept it.
  vk::raii::Buffer bad(ctx.runtime().device(), vk::BufferCreateInfo{.size = 16, .usage = {}});
  EXPECT_FALSE(ctx.validation_messages().empty());
}

// The bounds check (ContextOptions::check_bounds) reports a kernel access outside the buffer it is
// given: the copy kernel told to copy 8 chunks reads chunks 4-7 past the end of a 64-byte source.
// The same dispatch on a source of 128 bytes is reported clean. (The layer checks against the
// bound buffer's size, not the descriptor's range, so each tensor has a buffer of its own size.)
// Like the test above, it runs where the suite runs with the layer (FVK_VALIDATION=1, which CTest
// sets): a GPU machine without the layer runs the rest of the suite.
TEST(Validation, BoundsCheckReportsAnAccessOutsideTheBuffer) {
  if (!validation_requested()) GTEST_SKIP() << "FVK_VALIDATION=1 is not set: the validation layer is off";
  ContextOptions options;
  options.check_bounds = true;
  Context ctx(options);  // its own device, so the planted access does not fail other tests
  rt::Device& device = ctx.runtime();
  ASSERT_TRUE(device.check_bounds());
  ASSERT_FALSE(device.push_descriptors());
  const rt::Buffer dst(device, 128, rt::MemoryKind::Device);
  const auto& kernel = device.kernel("copy_b4");
  const std::uint32_t chunks = 8;
  auto copy_from = [&](const rt::Buffer& src) {
    rt::Stream stream(device);
    const rt::BufferRange bindings[] = {rt::whole(src), rt::whole(dst)};
    stream.dispatch(kernel, bindings, std::as_bytes(std::span(&chunks, 1)), chunks);
    stream.submit_and_wait();
  };
  copy_from(rt::Buffer(device, 128, rt::MemoryKind::Device));
  const auto clean = ctx.validation_messages();
  EXPECT_TRUE(clean.empty()) << clean.front();
  copy_from(rt::Buffer(device, 64, rt::MemoryKind::Device));
  const auto messages = ctx.validation_messages();
  ASSERT_EQ(messages.size(), 1u) << "an access past the source's end went unreported";
  EXPECT_THAT(messages.front(), HasSubstr("access out of bounds. Descriptor size is 64"));
}

// Dispatches that need more workgroups than x allows continue in y; every kernel must cover exactly
// its chunks then too. With x capped at one workgroup, a few thousand chunks take many rows of y.
TEST(Dispatch, TwoDimensionalGridsCoverEveryChunk) {
  ContextOptions options;
  options.max_workgroups_x = 1;
  for (const auto& target : ops::all_targets()) {
    if (target.dtype != DType::F32 && target.dtype != DType::U8 && target.dtype != DType::F16 &&
        target.dtype != DType::I64 && target.dtype != DType::F64)
      continue;
    Context& ctx = context_for(target, options);
    ASSERT_EQ(ctx.device_info().max_workgroup_count_x, 1u);
    // A fast build this device cannot run (the f64 atomic add on lavapipe): its portable build's
    // target covers what the ops dispatch here.
    if (!selftest::missing_features(ctx, target).empty()) continue;
    selftest::Case c;
    c.seed = 17;
    c.shape = {40, 333};  // 845 to 6760 chunks of 16 bytes: 4 to 27 rows of y
    c.left = {0, 0};
    c.right = {0, 0};
    if (target.op == ops::Op::Pad || target.op == ops::Op::PadBackward) c.left = c.right = {2, 3};
    const auto o = selftest::run_case(ctx, target, c);
    EXPECT_TRUE(o.pass) << target.kernel << " " << name(target.dtype) << ": " << o.detail;
    EXPECT_TRUE(ctx.validation_messages().empty()) << target.kernel;
  }
}

// The rank as specialization constant 1: one pipeline per (kernel, pass, rank), each keyed apart;
// a context opened with runtime_rank builds them without it (the rank then comes from the push
// constants; RuntimeRank in test_pass_fuzz.cpp checks those pipelines' bytes).
TEST(Pipelines, RankIsASpecializationConstantUnlessRuntimeRank) {
  auto& device = shared_context().runtime();
  const auto& r4 = device.kernel("pad_const_b1", 5, 4);
  const auto& r3 = device.kernel("pad_const_b1", 5, 3);
  EXPECT_EQ(r4.rank, 4u);
  EXPECT_EQ(r3.rank, 3u);
  EXPECT_NE(&r4, &r3);
  EXPECT_EQ(&device.kernel("pad_const_b1", 5, 4), &r4);
  // The deterministic backward's passes too (pass 7, the tile pass beside the multi-row pass).
  EXPECT_NE(&device.kernel("pad_backward_replicate_det_f32", 7, 3),
            &device.kernel("pad_backward_replicate_det_f32", 7, 2));
  ContextOptions o;
  o.runtime_rank = true;
  Context ctx(o);
  const auto& r0 = ctx.runtime().kernel("pad_const_b1", 5, 4);
  EXPECT_EQ(r0.rank, 0u);
  EXPECT_EQ(&ctx.runtime().kernel("pad_const_b1", 5, 3), &r0);
  EXPECT_TRUE(ctx.validation_messages().empty());
}

// FVK_RUNTIME_RANK=1 opens a context as runtime_rank does (an A/B of the constant in `fvk bench`,
// a way around a driver that compiles it wrongly).
TEST(Pipelines, RuntimeRankFromTheEnvironment) {
  ASSERT_EQ(setenv("FVK_RUNTIME_RANK", "1", 1), 0);
  Context ctx;
  ASSERT_EQ(unsetenv("FVK_RUNTIME_RANK"), 0);
  EXPECT_EQ(ctx.runtime().kernel("pad_backward_reflect_det_f16", 5, 4).rank, 0u);
  Context plain;
  EXPECT_EQ(plain.runtime().kernel("pad_backward_reflect_det_f16", 5, 4).rank, 4u);
}

// Specialization constants besides the rank (pad.comp's geometry): one pipeline per distinct set,
// keyed apart from the pipeline without them; the rank is kept with them on a runtime_rank device;
// constant 1 (the rank) or one id twice is refused before any pipeline is built.
TEST(Pipelines, OnePipelinePerSetOfConstants) {
  ContextOptions o;
  o.runtime_rank = true;
  Context ctx(o);
  auto& device = ctx.runtime();
  const std::size_t before = device.pipelines_with_constants();
  const rt::SpecConstant a[] = {{2, 1}, {3, 64}, {8, 8}, {16, 16}, {24, 4}};
  const rt::SpecConstant b[] = {{2, 1}, {3, 64}, {8, 8}, {16, 16}, {24, 3}};
  const auto& ka = device.kernel("pad_const_b4", 1, 1, a);
  const auto& kb = device.kernel("pad_const_b4", 1, 1, b);
  EXPECT_NE(&ka, &kb);
  EXPECT_EQ(&device.kernel("pad_const_b4", 1, 1, a), &ka);
  EXPECT_NE(&device.kernel("pad_const_b4", 1, 1), &ka);
  EXPECT_EQ(ka.rank, 1u);
  ASSERT_EQ(ka.constants.size(), 5u);
  EXPECT_EQ(ka.constants[4].value, 4u);
  EXPECT_EQ(device.pipelines_with_constants(), before + 2);
  for (const auto& bad : {std::vector<rt::SpecConstant>{{1, 3}}, std::vector<rt::SpecConstant>{{2, 1}, {2, 1}}}) {
    SCOPED_TRACE("constant " + std::to_string(bad.back().id));
    EXPECT_THAT(expect_error(ErrorCode::Internal, [&] { (void)device.kernel("pad_const_b4", 1, 1, bad); }),
                HasSubstr("specialization constant"));
  }
  EXPECT_EQ(device.pipelines_with_constants(), before + 2);
  EXPECT_TRUE(ctx.validation_messages().empty());
}

// kernel_when_hot: nullptr and nothing queued before the `hot_after`th use; that use queues one
// background build (later uses queue no other); once it is done, the pipeline kernel() returns for
// the same constants, not counted among the pipelines kernel() built. hot_after 0 never queues,
// nor does a device that has queued `max_builds`.
TEST(Pipelines, BuiltInTheBackgroundOnceHot) {
  Context ctx;
  auto& device = ctx.runtime();
  const rt::SpecConstant c[] = {{2, 1}, {3, 96}, {8, 8}, {16, 12}, {24, 2}};
  const std::size_t with_constants = device.pipelines_with_constants();
  const auto hot = [&](std::span<const rt::SpecConstant> constants, std::uint32_t after, std::uint64_t max = 8) {
    return device.kernel_when_hot("pad_reflect_b4", 1, 1, constants, after, max);
  };
  EXPECT_EQ(hot(c, 3), nullptr);
  EXPECT_EQ(hot(c, 3), nullptr);
  device.finish_background_builds();
  EXPECT_EQ(device.background_builds(), 0u);
  EXPECT_EQ(hot(c, 3), nullptr);  // the third: queued
  EXPECT_EQ(device.background_builds(), 1u);
  (void)hot(c, 3);
  device.finish_background_builds();
  EXPECT_EQ(device.background_builds(), 1u);
  const rt::Kernel* built = hot(c, 3);
  ASSERT_NE(built, nullptr);
  EXPECT_EQ(built, &device.kernel("pad_reflect_b4", 1, 1, c));
  ASSERT_EQ(built->constants.size(), 5u);
  EXPECT_EQ(built->constants[1].value, 96u);
  EXPECT_EQ(device.pipelines_with_constants(), with_constants);
  const rt::SpecConstant other[] = {{2, 1}, {3, 97}, {8, 8}, {16, 12}, {24, 2}};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(hot(other, 0), nullptr);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(hot(other, 1, 1), nullptr);  // one build queued already
  device.finish_background_builds();
  EXPECT_EQ(device.background_builds(), 1u);
  EXPECT_EQ(hot(other, 1, 2), nullptr);
  device.finish_background_builds();
  EXPECT_EQ(device.background_builds(), 2u);
  EXPECT_NE(hot(other, 1, 2), nullptr);
  EXPECT_TRUE(device.background_build_failures().empty());
  EXPECT_TRUE(ctx.validation_messages().empty());
}

// The builder thread: jobs run one at a time in order; wait_idle returns once all have run (at
// once with none); a job that throws is swallowed; destruction lets the running job finish and
// drops the queued ones.
TEST(WorkerThread, RunsInOrderAndDropsTheQueueOnDestruction) {
  {
    rt::WorkerThread worker;
    worker.wait_idle();
    std::vector<int> order;
    for (int i = 0; i < 5; ++i) worker.post([&order, i] { order.push_back(i); });
    worker.post([] { throw std::runtime_error("a job's own error"); });
    worker.post([&order] { order.push_back(5); });
    worker.wait_idle();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  }
  std::atomic<int> started{0}, finished{0};
  {
    rt::WorkerThread worker;
    for (int i = 0; i < 4; ++i)
      worker.post([&] {
        ++started;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ++finished;
      });
    while (started.load() == 0) std::this_thread::yield();
  }
  EXPECT_EQ(started.load(), 1);
  EXPECT_EQ(finished.load(), 1);
}

// Small device-local buffers share the device's blocks (rt::Suballocator): a thousand of 1 KiB take
// one block; each range is aligned as the buffer needs and disjoint from the others; a range given
// back is handed out again, merged with its free neighbours; an empty block is kept (one per memory
// type); buffers over kMaxPooledBytes, and host-visible ones, keep an allocation of their own. And
// tensors in reused ranges hold their own bytes: an op's output written over a freed tensor's range.
TEST(Suballocator, SmallBuffersShareBlocks) {
  Context ctx;
  auto& device = ctx.runtime();
  auto& pool = device.suballocator();
  const std::size_t blocks = pool.blocks();
  std::vector<std::unique_ptr<rt::Buffer>> small;
  for (int i = 0; i < 1000; ++i)
    small.push_back(std::make_unique<rt::Buffer>(device, 1000 + i % 37, rt::MemoryKind::Device));
  EXPECT_LE(pool.blocks(), blocks + 1);
  std::vector<std::pair<vk::DeviceSize, vk::DeviceSize>> ranges;
  for (const auto& b : small) {
    ASSERT_TRUE(b->pooled());
    ranges.emplace_back(b->memory_offset(), b->allocated());
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    EXPECT_LE(ranges[i - 1].first + ranges[i - 1].second, ranges[i].first) << "ranges overlap";
  // A freed range is the first fit for the next buffer of its size.
  const vk::DeviceSize freed = small[500]->memory_offset();
  const vk::DeviceSize size = small[500]->size();
  small[500].reset();
  EXPECT_EQ(rt::Buffer(device, size, rt::MemoryKind::Device).memory_offset(), freed);
  // Free neighbours merge: two adjacent ranges freed hold a buffer of both their sizes.
  std::vector<std::pair<vk::DeviceSize, int>> by_offset;
  for (int i = 0; i < 1000; ++i)
    if (small[i]) by_offset.emplace_back(small[i]->memory_offset(), i);
  std::sort(by_offset.begin(), by_offset.end());
  const int a = by_offset[100].second, b = by_offset[101].second;
  const vk::DeviceSize start = small[a]->memory_offset();
  const vk::DeviceSize joined = small[b]->memory_offset() + small[b]->allocated() - start;
  small[a].reset();
  small[b].reset();
  EXPECT_EQ(rt::Buffer(device, joined, rt::MemoryKind::Device).memory_offset(), start);
  small.clear();
  EXPECT_GE(pool.blocks(), 1u);
  EXPECT_LE(pool.blocks(), blocks + 1);
  const std::uint64_t leases = pool.leases_made();
  EXPECT_FALSE(rt::Buffer(device, rt::Suballocator::kMaxPooledBytes + 16, rt::MemoryKind::Device).pooled());
  EXPECT_FALSE(rt::Buffer(device, 1024, rt::MemoryKind::Readback).pooled());
  EXPECT_EQ(pool.leases_made(), leases);
  // Reused ranges: tensors made and freed, then an op whose output lands on their ranges.
  std::mt19937_64 rng(11);
  const Shape shape{8, 3, 32, 32};
  const std::vector<std::int64_t> torch_pads{1, 1, 1, 1};
  const PadSpec spec = PadSpec::from_torch(PadMode::Reflect, 4, torch_pads);
  for (int round = 0; round < 3; ++round) {
    std::vector<Tensor> junk;
    for (int i = 0; i < 20; ++i)
      junk.push_back(ctx.upload(ref::random_bits(DType::F32, infer_pad(shape, spec).out, rng)));
    junk.clear();
    const HostTensor x = ref::random_bits(DType::F32, shape, rng);
    const HostTensor got = ctx.download(pad(ctx, ctx.upload(x), spec));
    EXPECT_EQ(got.data, ref::pad(x, infer_pad(shape, spec), 0).data) << "round " << round;
  }
  EXPECT_TRUE(ctx.validation_messages().empty());
}

// A context destroyed with background builds queued and running: the running one finishes, the
// others are dropped, nothing crashes, and the pipeline a finished build left behind goes with
// the device.
TEST(Pipelines, DestroyedWithBuildsQueued) {
  for (int round = 0; round < 3; ++round) {
    Context ctx;
    for (std::uint32_t n = 1; n <= 6; ++n) {
      const rt::SpecConstant c[] = {{2, 1}, {3, 16 * n}, {8, 4 * n}, {16, 16 * n}, {24, 6 * n}};
      EXPECT_EQ(ctx.runtime().kernel_when_hot("pad_const_b4", 1, 1, c, 1, 8), nullptr);
    }
    EXPECT_EQ(ctx.runtime().background_builds(), 6u);
    EXPECT_TRUE(ctx.validation_messages().empty());
  }
}

// Where pipelines are built for one geometry: under Auto, the passes of pad.comp and of the
// deterministic backward, but for 1-byte rows in the tile pass with four chunks (pass 6): at once
// on destinations of 1 MiB and more, until kMaxShapePipelines are built so; once hot on smaller
// ones (never with specialize_after 0), whatever the large ones built (the hot ones' budget is
// kernel_when_hot's); Always at every size at once, with no cap; Never nowhere; the other kernels
// never.
TEST(ShapeConstants, TheRule) {
  using G = ops::GeometryBuild;
  const auto rule = [](ShapeConstants setting, std::string_view kernel, std::uint32_t pass, std::uint32_t rank,
                       std::uint64_t dst_bytes, std::size_t built, std::uint32_t specialize_after = 16) {
    return ops::shape_constants_rule(setting, specialize_after, kernel, pass, rank, dst_bytes, built);
  };
  const auto A = ShapeConstants::Auto;
  const std::uint64_t big = 1 << 20, small = (1 << 20) - 1;
  EXPECT_EQ(rule(A, "pad_reflect_b4", 5, 4, big, 0), G::Now);
  EXPECT_EQ(rule(A, "pad_backward_const_b1", 4, 4, big, 0), G::Now);
  EXPECT_EQ(rule(A, "pad_const_portable_b2", 6, 3, big, 0), G::Now);
  EXPECT_EQ(rule(A, "pad_backward_replicate_det_f16", 7, 4, big, 0), G::Now);
  EXPECT_EQ(rule(A, "pad_replicate_b2", 6, 3, big, ops::kMaxShapePipelines - 1), G::Now);
  EXPECT_EQ(rule(A, "pad_replicate_b2", 6, 3, big, ops::kMaxShapePipelines), G::Never);
  EXPECT_EQ(rule(A, "pad_reflect_b4", 5, 4, small, 0), G::WhenHot);
  EXPECT_EQ(rule(A, "pad_reflect_b4", 5, 4, small, 0, 1), G::WhenHot);
  EXPECT_EQ(rule(A, "pad_reflect_b4", 5, 4, small, 0, 0), G::Never);
  EXPECT_EQ(rule(A, "pad_reflect_b4", 5, 4, big, 0, 0), G::Now);
  EXPECT_EQ(rule(A, "pad_reflect_b4", 5, 4, small, ops::kMaxShapePipelines), G::WhenHot);
  EXPECT_EQ(rule(A, "pad_reflect_b1", 6, 3, big, 0), G::Never);
  EXPECT_EQ(rule(A, "pad_reflect_b1", 6, 3, small, 0), G::Never);
  EXPECT_EQ(rule(A, "pad_reflect_b1", 5, 3, big, 0), G::Now);
  // The deterministic backward's multi-row pass too (it keeps the run-time rank only without them).
  EXPECT_EQ(rule(A, "pad_backward_reflect_det_f32", 3, 4, big, 0), G::Now);
  EXPECT_EQ(rule(A, "pad_backward_reflect_det_f32", 3, 4, 16, 0), G::WhenHot);
  EXPECT_EQ(rule(ShapeConstants::Always, "pad_backward_replicate_det_f32", 3, 4, 16, 0), G::Now);
  EXPECT_EQ(rule(ShapeConstants::Always, "pad_reflect_b1", 6, 3, 16, ops::kMaxShapePipelines, 0), G::Now);
  EXPECT_EQ(rule(ShapeConstants::Never, "pad_reflect_b4", 5, 4, big, 0), G::Never);
  EXPECT_EQ(rule(ShapeConstants::Never, "pad_reflect_b4", 5, 4, small, 0), G::Never);
  for (const char* other : {"pad_backward_reflect_f32", "masked_fill_b4", "contiguize_b4", "copy_b4"}) {
    EXPECT_EQ(rule(ShapeConstants::Always, other, 0, 2, big, 0), G::Never) << other;
    EXPECT_EQ(rule(A, other, 0, 2, small, 0), G::Never) << other;
  }
  EXPECT_EQ(rule(ShapeConstants::Always, "pad_const_b4", 0, 8, big, 0), G::Never);
  EXPECT_EQ(rule(A, "pad_const_b4", 0, 8, small, 0), G::Never);
  EXPECT_EQ(rule(ShapeConstants::Always, "pad_const_b4", 0, 0, big, 0), G::Never);
}

// The op builds its passes for the geometry under Always, not under Never, nor under Auto below
// 1 MiB; env FVK_SHAPE_CONSTANTS overrides the option, and a value it does not take is refused with
// its name and the values it takes.
TEST(ShapeConstants, TheSettingDecidesWhatTheOpBuilds) {
  const HostTensor host = HostTensor::zeros(DType::F32, {3, 5, 20});
  const PadSpec spec{PadMode::Reflect, {1, 2, 3}, {2, 1, 4}};
  for (auto setting : {ShapeConstants::Never, ShapeConstants::Auto, ShapeConstants::Always}) {
    ContextOptions o;
    o.shape_constants = setting;
    Context ctx(o);
    (void)pad(ctx, ctx.upload(host), spec);
    EXPECT_EQ(ctx.runtime().pipelines_with_constants() > 0, setting == ShapeConstants::Always)
        << static_cast<int>(setting);
  }
  ASSERT_EQ(setenv("FVK_SHAPE_CONSTANTS", "never", 1), 0);
  {
    ContextOptions o;
    o.shape_constants = ShapeConstants::Always;
    Context ctx(o);
    EXPECT_EQ(ctx.runtime().shape_constants(), ShapeConstants::Never);
  }
  ASSERT_EQ(setenv("FVK_SHAPE_CONSTANTS", "sometimes", 1), 0);
  const auto sometimes = expect_error(ErrorCode::InvalidArgument, [] { Context ctx; });
  EXPECT_THAT(sometimes, HasSubstr("FVK_SHAPE_CONSTANTS"));
  EXPECT_THAT(sometimes, HasSubstr("auto, never or always"));
  ASSERT_EQ(unsetenv("FVK_SHAPE_CONSTANTS"), 0);
}

// Under Auto, a small destination's op runs the pipelines that read its geometry until one of its
// passes has been recorded specialize_after times; then they are built in the background, and the
// ops after that run them, with the same bytes. specialize_after 0, and ShapeConstants::Never,
// build none. FVK_SPECIALIZE_AFTER overrides the option; a value that is not a count is refused.
TEST(ShapeConstants, SmallGeometriesTurnHot) {
  std::mt19937_64 rng(5);
  const HostTensor host = ref::random_values(DType::F32, {3, 5, 20}, rng);
  const PadSpec spec{PadMode::Reflect, {1, 2, 3}, {2, 1, 4}};
  const HostTensor expected = ref::pad(host, infer_pad(host.shape, spec), 0);
  for (const auto& [setting, after] : {std::pair{ShapeConstants::Auto, 3u}, std::pair{ShapeConstants::Auto, 0u},
                                       std::pair{ShapeConstants::Never, 3u}}) {
    ContextOptions o;
    o.shape_constants = setting;
    o.specialize_after = after;
    o.poison_new_tensors = true;
    Context ctx(o);
    const Tensor in = ctx.upload(host);
    const bool builds = setting == ShapeConstants::Auto && after > 0;
    for (std::uint32_t run = 1; run <= 5; ++run) {
      EXPECT_EQ(ctx.download(pad(ctx, in, spec)).data, expected.data) << "run " << run;
      ctx.finish_background_builds();
      EXPECT_EQ(ctx.runtime().background_builds() > 0, builds && run >= 3)
          << "run " << run << " of " << static_cast<int>(setting);
      EXPECT_EQ(ctx.runtime().pipelines_with_constants(), 0u) << "run " << run;  // none on the op's path
    }
    EXPECT_TRUE(ctx.runtime().background_build_failures().empty());
    EXPECT_TRUE(ctx.validation_messages().empty());
  }
  ASSERT_EQ(setenv("FVK_SPECIALIZE_AFTER", "0", 1), 0);
  {
    Context ctx;
    EXPECT_EQ(ctx.runtime().specialize_after(), 0u);
  }
  for (const char* bad : {"-1", "abc", "3x", "99999999999"}) {
    ASSERT_EQ(setenv("FVK_SPECIALIZE_AFTER", bad, 1), 0);
    SCOPED_TRACE(std::string("FVK_SPECIALIZE_AFTER=") + bad);
    EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [] { Context ctx; }), HasSubstr("FVK_SPECIALIZE_AFTER"));
  }
  ASSERT_EQ(unsetenv("FVK_SPECIALIZE_AFTER"), 0);
}

// An op's pass under Auto on a small destination: the pipeline that reads the geometry until the
// pass has been asked for specialize_after times, then (its build done) the one built for the
// geometry, with the constants shape_constants gives it.
TEST(ShapeConstants, AHotPassRunsThePipelineBuiltForItsGeometry) {
  ContextOptions o;
  o.specialize_after = 3;
  Context ctx(o);
  auto& device = ctx.runtime();
  const PadGeometry g = infer_pad({3, 5, 20}, PadSpec{PadMode::Reflect, {1, 2, 3}, {2, 1, 4}});
  const auto n_dst = static_cast<std::uint32_t>(numel(g.out));
  const std::string kernel = "pad_reflect_b4";
  const ops::GeometryPipelines pipelines(device, kernel, g, n_dst, std::uint64_t{n_dst} * 4);
  const std::uint32_t pass = 1;
  EXPECT_FALSE(pipelines.specialized(pass));  // the plan never counts on a hot pass
  for (int use = 1; use <= 3; ++use) {
    EXPECT_TRUE(pipelines(pass).constants.empty()) << "use " << use;
    device.finish_background_builds();
  }
  const rt::Kernel& hot = pipelines(pass);
  const auto expected = ops::shape_constants(g, n_dst);
  ASSERT_EQ(hot.constants.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(hot.constants[i].id, expected[i].id);
    EXPECT_EQ(hot.constants[i].value, expected[i].value);
  }
  EXPECT_EQ(hot.pass, pass);
  EXPECT_EQ(device.background_builds(), 1u);
  EXPECT_TRUE(ctx.validation_messages().empty());
}

// Pipeline statistics (`fvk stats`): refused on a device opened without the option, refused with
// FeatureMissing where the driver lacks the extension (lavapipe of Debian 12), and where it has it
// (the H200's driver), reported for a kernel's passes 0 and 4.
TEST(PipelineStatistics, NeedTheContextOption) {
  Context ctx;
  const auto& kernel = ctx.runtime().kernel("copy_b4");
  // No statistics without capture_pipeline_statistics.
  EXPECT_THAT(expect_error(ErrorCode::InvalidArgument, [&] { (void)ctx.runtime().pipeline_statistics(kernel); }),
              HasSubstr("capture_pipeline_statistics"));
}

TEST(PipelineStatistics, ReportedWhereTheDriverHasThem) {
  ContextOptions options;
  options.capture_pipeline_statistics = true;
  if (!shared_context().device_info().pipeline_statistics) {
    // A device without VK_KHR_pipeline_executable_properties refuses capture_pipeline_statistics.
    EXPECT_THAT(expect_error(ErrorCode::FeatureMissing, [&] { Context ctx(options); }),
                HasSubstr("VK_KHR_pipeline_executable_properties"));
    return;
  }
  Context ctx(options);
  for (const std::uint32_t pass : {0u, 4u}) {
    const auto stats = ctx.runtime().pipeline_statistics(ctx.runtime().kernel("pad_backward_reflect_det_f32", pass));
    ASSERT_FALSE(stats.empty()) << "pass " << pass;
    for (const auto& s : stats) {
      EXPECT_FALSE(s.name.empty());
      EXPECT_FALSE(s.value.empty()) << s.name;
    }
  }
  EXPECT_TRUE(ctx.validation_messages().empty());
}

// The dispatch grid: x alone where it fits, else balanced rows of y that cover the invocations
// with less than a workgroup per row to spare; refused past the y limit and past 2^32 invocations
// (the kernels' 32-bit index would wrap and run low invocations twice: wrong for the atomic adds).
TEST(DispatchGrid, CoversTheInvocationsWithin32Bits) {
  const auto g1 = rt::dispatch_grid(1000, 256, 65535, 65535);
  EXPECT_EQ(g1.x, 4u);
  EXPECT_EQ(g1.y, 1u);
  for (std::uint64_t n : {std::uint64_t{65535} * 256 + 1, std::uint64_t{1} << 31, (std::uint64_t{1} << 32) - 65792}) {
    const auto g = rt::dispatch_grid(n, 256, 65535, 65535);
    const std::uint64_t groups = (n + 255) / 256;
    EXPECT_GE(std::uint64_t{g.x} * g.y, groups) << n;
    EXPECT_LT(std::uint64_t{g.x} * g.y - groups, g.y) << n;
    EXPECT_LE(std::uint64_t{g.x} * g.y * 256, std::uint64_t{1} << 32) << n;
    EXPECT_LE(g.x, 65535u);
  }
  auto refused = [](std::uint64_t n, std::uint64_t max_x, std::uint64_t max_y, const char* words) {
    SCOPED_TRACE(std::to_string(n) + " invocations");
    EXPECT_THAT(expect_error(ErrorCode::DeviceLimit, [&] { (void)rt::dispatch_grid(n, 256, max_x, max_y); }),
                HasSubstr(words));
  };
  // 2^32 - 1 invocations: 2^24 workgroups, 257 rows of 65281, 16,777,217 workgroups: one too many.
  refused((std::uint64_t{1} << 32) - 1, 65535, 65535, "2^32");
  refused(std::uint64_t{1} << 20, 1, 1000, "workgroup-count limits");
}

}  // namespace
}  // namespace fvk::testing
