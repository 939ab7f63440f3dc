// A batch of 1000 small pads recorded into one submission gives the same bytes as 1000 separate
// ones; prints the per-op overhead of both (GPU time from timestamps, wall time per op).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "fvk/batch.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "gpu_fixture.hpp"
#include "planner/batch_overhead.hpp"
#include "reference/random_tensor.hpp"
#include "reference/reference.hpp"
#include "runtime/buffer.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace fvk::testing {
namespace {

class BatchTest : public GpuTest {};

// Downloads many tensors with one submission (one readback buffer, one copy each).
std::vector<std::byte> download_all(Context& ctx, const std::vector<Tensor>& ts) {
  std::uint64_t total = 0;
  for (const auto& t : ts) total += t.nbytes();
  rt::Buffer staging(ctx.runtime(), total, rt::MemoryKind::Readback);
  rt::Stream s(ctx.runtime());
  std::uint64_t at = 0;
  for (const auto& t : ts) {
    s.copy_region(*t.storage(), staging, vk::BufferCopy{.srcOffset = 0, .dstOffset = at, .size = t.nbytes()});
    at += t.nbytes();
  }
  s.host_barrier();
  s.submit_and_wait();
  auto host = staging.host();
  return {host.begin(), host.end()};
}

TEST_F(BatchTest, ThousandSmallPadsInOneSubmissionMatchThousandSeparate) {
  std::mt19937_64 rng(1000);
  const HostTensor host = ref::random_bits(DType::F32, {1000, 3, 5}, rng);
  const Tensor all = ctx().upload(host);
  // 1000 dense inputs of 3x5, made on the device from one upload.
  std::vector<Tensor> inputs;
  {
    rt::Stream s(ctx().runtime());
    for (int i = 0; i < 1000; ++i) {
      inputs.push_back(ctx().empty(DType::F32, {3, 5}));
      s.copy_region(*all.storage(), *inputs.back().storage(),
                    vk::BufferCopy{.srcOffset = i * 60ull, .dstOffset = 0, .size = 60});
    }
    s.barrier();
    s.submit_and_wait();
  }
  const PadSpec spec{PadMode::Reflect, {1, 2}, {2, 1}};
  const auto r = planner::measure_batch_overhead(ctx(), inputs, spec);
  EXPECT_EQ(r.batch_submissions, 1u);
  ASSERT_EQ(r.batched.size(), 1000u);
  EXPECT_EQ(download_all(ctx(), r.batched), download_all(ctx(), r.alone));
  // And both are the reference's.
  const HostTensor first = ref::contiguize(host.data, DType::F32, {3, 5}, std::vector<std::int64_t>{5, 1}, 999 * 15);
  const HostTensor want = ref::pad(first, infer_pad({3, 5}, spec), 0);
  EXPECT_EQ(ctx().download(r.batched.back()).data, want.data);
  std::printf(
      "[ overhead ] 1000 small pads (3x5 f32 reflect) on %s%s: alone %.1f us wall, %.2f us GPU per op; "
      "batched %.1f us wall, %.2f us GPU per op\n",
      ctx().device_info().name.c_str(), ctx().runtime().validation_enabled() ? " (validation on)" : "",
      r.alone_wall_ns_per_op / 1e3, r.alone_gpu_ns_per_op / 1e3, r.batch_wall_ns_per_op / 1e3,
      r.batch_gpu_ns_per_op / 1e3);
}

TEST_F(BatchTest, RefusalLeavesTheBatchUsableAndSubmitIsOnce) {
  Batch b(ctx());
  const Tensor x = ctx().upload(HostTensor::zeros(DType::F32, {3}));
  EXPECT_THROW(b.pad(x, PadSpec{PadMode::Reflect, {3}, {0}}), Error);
  const Tensor y = b.pad(x, PadSpec{PadMode::Constant, {1}, {1}}, Scalar::from_double(1.0));
  b.submit();
  EXPECT_EQ(b.ops(), 1u);
  EXPECT_EQ(ctx().download(y).get<float>(0), 1.0f);
  EXPECT_THROW(b.submit(), Error);
  EXPECT_THROW(b.pad(x, PadSpec{PadMode::Constant, {1}, {1}}), Error);
}

// On a device without subgroup operations the planner and the wrappers both take the portable
// builds (a batch refuses with Internal where they disagree), with the bytes of the reference.
TEST(Batch, PortableBuildsWithoutSubgroupOperations) {
  ContextOptions o;
  o.disabled_features = {"subgroupShuffle"};
  o.always_split_passes = true;  // the tile passes, where the builds differ, on small tensors
  Context limited(o);
  std::mt19937_64 rng(12);
  const HostTensor in = ref::random_bits(DType::U8, {5, 7, 83}, rng);
  const HostTensor grad = ref::random_values(DType::F32, {5, 9, 70}, rng);
  const PadSpec fwd{PadMode::Reflect, {0, 2, 3}, {0, 1, 4}};
  const PadSpec back{PadMode::Replicate, {0, 1, 2}, {0, 3, 1}};
  Batch b(limited);
  const Tensor x = limited.upload(in), g = limited.upload(grad);
  const Tensor y = b.pad(x, fwd);
  const Tensor gi = b.pad_backward(g, back);
  b.submit();
  EXPECT_EQ(limited.download(y).data, ref::pad(in, infer_pad(in.shape, fwd), 0).data);
  EXPECT_EQ(limited.download(gi).data, ref::pad_backward_sum(grad, infer_pad_backward(grad.shape, back)).data);
  EXPECT_TRUE(limited.validation_messages().empty());
}

// A batch records the atomic backwards' adds of all its ops after one barrier (not one per op), and
// before any later step that reads what they write. Both forms: fill then adds (small tensors), and
// crop then adds (always_split_passes: the form of 1 MiB and more). Integer gradients: every order
// of the adds gives the exact sum. With the validation layer on (FVK_VALIDATION=1, as in CI), its
// synchronization validation reports a missing or misplaced barrier even where the device (lavapipe)
// happens to run the commands in order.
TEST(Batch, AtomicBackwardsShareOneBarrierBeforeTheirAdds) {
  for (const bool split : {false, true}) {
    ContextOptions o;
    o.always_split_passes = split;
    o.validate_synchronization = true;
    Context c(o);
    std::mt19937_64 rng(71);
    // f32 integers in [-8, 8].
    auto integer_grad = [&rng](const Shape& shape) {
      HostTensor g = HostTensor::zeros(DType::F32, shape);
      for (std::size_t k = 0; k < g.numel(); ++k) g.set<float>(k, static_cast<float>(static_cast<int>(rng() % 17) - 8));
      return g;
    };
    const PadSpec spec{PadMode::Reflect, {0, 2, 1}, {0, 1, 3}};
    std::vector<HostTensor> grads;
    std::vector<Tensor> outs;
    Batch b(c, PlanPolicy::PreferNondeterministic);
    for (int i = 0; i < 4; ++i) {
      const HostTensor g = integer_grad({3, 9, 37});
      grads.push_back(g);
      outs.push_back(b.pad_backward(c.upload(g), spec));
    }
    const HostTensor mask_host = ref::random_mask(outs[0].shape(), 0.5, rng);
    const Tensor filled = b.masked_fill(outs[0], c.upload(mask_host), Scalar::from_double(0.5));
    EXPECT_EQ(b.barriers(), 2u) << "split " << split;  // the adds' one, then the masked_fill's
    b.submit();
    EXPECT_EQ(b.barriers(), 2u) << "split " << split;
    std::vector<HostTensor> want;
    for (std::size_t i = 0; i < grads.size(); ++i) {
      want.push_back(ref::pad_backward_sum(grads[i], infer_pad_backward(grads[i].shape, spec)));
      EXPECT_EQ(c.download(outs[i]).data, want[i].data) << "op " << i << ", split " << split;
    }
    EXPECT_EQ(c.download(filled).data, ref::masked_fill(want[0], mask_host, 0x3F000000u).data) << "split " << split;

    // Views: each op reads a Contiguize temporary, which goes back to the pool while the op's adds
    // wait; the next op's Contiguize takes the same temporary and may overwrite it only after them.
    auto& pool = c.runtime().temp_pool();
    const auto reuses = pool.reuses();
    Batch v(c, PlanPolicy::PreferNondeterministic);
    std::vector<HostTensor> realized;
    std::vector<Tensor> view_outs;
    for (int i = 0; i < 3; ++i) {
      const HostTensor g = integer_grad({37, 9, 3});
      const TensorView t = TensorView(c.upload(g)).permute({2, 1, 0});
      realized.push_back(ref::contiguize(g.data, DType::F32, t.shape(), t.strides(), t.offset()));
      view_outs.push_back(v.pad_backward(t, spec));
    }
    v.submit();
    EXPECT_EQ(v.contiguize_steps(), 3u);
    EXPECT_GE(pool.reuses(), reuses + 2) << "split " << split;
    for (std::size_t i = 0; i < realized.size(); ++i)
      EXPECT_EQ(c.download(view_outs[i]).data,
                ref::pad_backward_sum(realized[i], infer_pad_backward(realized[i].shape, spec)).data)
          << "view op " << i << ", split " << split;
    for (const auto& m : c.validation_messages()) ADD_FAILURE() << "validation layer: " << m;
  }
}

// The temporaries' pool keeps released buffers for reuse, up to its limit; clear() frees them (what
// ~Context does, since the tensors it made may keep the device for longer).
TEST(BufferPoolCache, ClearFreesTheCachedBuffers) {
  rt::BufferPool pool(shared_context().runtime(), 1024);
  auto a = pool.acquire(512);
  auto b = pool.acquire(512);
  auto c = pool.acquire(512);
  pool.release(std::move(a));
  pool.release(std::move(b));
  pool.release(std::move(c));  // past the 1024 bytes kept: freed
  EXPECT_EQ(pool.cached(), 2u);
  pool.clear();
  EXPECT_EQ(pool.cached(), 0u);
  const auto made = pool.allocations();
  (void)pool.acquire(512);
  EXPECT_EQ(pool.allocations(), made + 1) << "a cleared pool allocates anew";
}

}  // namespace
}  // namespace fvk::testing
