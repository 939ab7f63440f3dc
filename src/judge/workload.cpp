#include "judge/workload.hpp"

#include <cstring>

#include "fvk/error.hpp"
#include "ops/contiguize.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"

namespace fvk::judge {
namespace {

// Fills a device buffer with pseudo-random bits through a staging buffer, in slices.
void upload_random(rt::Device& device, rt::Buffer& dst, std::uint64_t seed) {
  const std::uint64_t total = dst.allocated();
  const std::uint64_t slice = std::min<std::uint64_t>(total, 64ull << 20);
  rt::Buffer staging(device, slice, rt::MemoryKind::Upload);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::uint64_t done = 0; done < total; done += slice) {
    auto host = staging.host();
    auto* words = reinterpret_cast<std::uint64_t*>(host.data());
    for (std::size_t i = 0; i < host.size() / 8; ++i) {  // xorshift64*
      x ^= x >> 12;
      x ^= x << 25;
      x ^= x >> 27;
      words[i] = x * 0x2545F4914F6CDD1Dull;
    }
    rt::Stream s(device, 0);
    const std::uint64_t n = std::min(slice, total - done);
    vk::BufferCopy region{.srcOffset = 0, .dstOffset = done, .size = n};
    s.copy_region(staging, dst, region);
    s.barrier();
    s.submit_and_wait();
  }
}

// A pad's shapes and element counts (backward: in = grad_in, out = grad_out).
void take_geometry(Workload& w, const PadGeometry& g) {
  w.in_shape = g.in;
  w.out_shape = g.out;
  w.n_in = static_cast<std::uint64_t>(numel(g.in));
  w.n_out = static_cast<std::uint64_t>(numel(g.out));
}

}  // namespace

std::shared_ptr<rt::Buffer> BufferPool::random(int slot, std::uint64_t bytes) {
  for (auto& [s, b] : random_)
    if (s == slot && b->allocated() >= bytes) return b;
  auto b = std::make_shared<rt::Buffer>(device_, bytes, rt::MemoryKind::Device);
  upload_random(device_, *b, static_cast<std::uint64_t>(slot) + random_.size() + 1);
  random_.emplace_back(slot, b);
  return b;
}

std::shared_ptr<rt::Buffer> BufferPool::scratch(int slot, std::uint64_t bytes) {
  for (auto& [s, b] : scratch_)
    if (s == slot && b->allocated() >= bytes) return b;
  auto b = std::make_shared<rt::Buffer>(device_, bytes, rt::MemoryKind::Device);
  scratch_.emplace_back(slot, b);
  return b;
}

Workload make_workload(BufferPool& pool, const ops::Target& t, const Shape& in_shape,
                       const std::vector<std::int64_t>& left, const std::vector<std::int64_t>& right) {
  Workload w;
  w.target = t;
  const std::size_t bw = byte_width(t.dtype);
  if (t.op == ops::Op::Copy) {
    w.in_shape = w.out_shape = in_shape;
    w.n_in = w.n_out = static_cast<std::uint64_t>(numel(in_shape));
    const std::uint64_t bytes = (w.n_in * bw + 15) / 16 * 16;
    auto src = pool.random(0, bytes);
    auto dst = pool.scratch(0, bytes);
    w.buffers = {src, dst};
    w.record = [=](rt::Stream& s) { ops::record_copy(s, *src, *dst, bytes); };
    return w;
  }
  if (t.op == ops::Op::Contiguize) {
    // The awkward layout the planner meets most: the last two axes transposed.
    w.in_shape = w.out_shape = in_shape;
    w.n_in = w.n_out = static_cast<std::uint64_t>(numel(in_shape));
    ViewLayout view = ViewLayout::dense(t.dtype, in_shape);
    if (in_shape.size() >= 2) {
      const auto r = in_shape.size();
      std::swap(view.shape[r - 1], view.shape[r - 2]);
      std::swap(view.strides[r - 1], view.strides[r - 2]);
    }
    auto src = pool.random(0, w.n_in * bw);
    auto dst = pool.scratch(0, w.n_out * bw);
    w.buffers = {src, dst};
    w.record = [=](rt::Stream& s) { ops::record_contiguize(s, view, *src, *dst); };
    return w;
  }
  if (t.op == ops::Op::MaskedFill) {
    w.in_shape = w.out_shape = in_shape;
    w.n_in = w.n_out = static_cast<std::uint64_t>(numel(in_shape));
    auto in = pool.random(0, w.n_in * bw);
    auto mask = pool.random(1, w.n_in);
    auto out = pool.scratch(0, w.n_out * bw);
    w.buffers = {in, mask, out};
    const auto n = static_cast<std::uint32_t>(w.n_in);
    const DType d = t.dtype;
    w.record = [=](rt::Stream& s) { ops::record_masked_fill(s, n, d, *in, *mask, *out, 0x3F800000u); };
    return w;
  }
  const PadSpec spec{t.mode, left, right};
  if (t.op == ops::Op::Pad) {
    const PadGeometry g = infer_pad(in_shape, spec);
    take_geometry(w, g);
    auto in = pool.random(0, w.n_in * bw);
    auto out = pool.scratch(0, w.n_out * bw);
    w.buffers = {in, out};
    const DType d = t.dtype;
    const std::string kernel = t.kernel;
    w.record = [=](rt::Stream& s) { ops::record_pad(s, g, d, *in, *out, 0, kernel); };
    return w;
  }
  Shape grad_out_shape = in_shape;
  for (std::size_t a = 0; a < in_shape.size(); ++a) grad_out_shape[a] += left[a] + right[a];
  const PadGeometry g = infer_pad_backward(grad_out_shape, spec);
  ops::check_pad_backward(pool.device(), g, t.dtype, t.algorithm);  // as the public op does
  take_geometry(w, g);
  auto grad_out = pool.random(0, w.n_out * bw);
  auto grad_in = pool.scratch(0, w.n_in * bw);
  w.buffers = {grad_out, grad_in};
  const DType d = t.dtype;
  const auto algorithm = t.algorithm;
  const std::string kernel = t.kernel;
  w.record = [=](rt::Stream& s) { ops::record_pad_backward(s, g, d, *grad_out, *grad_in, algorithm, kernel); };
  return w;
}

fkc::SymbolValues formula_symbols(const Workload& w) {
  return {{"n_in", static_cast<double>(w.n_in)},
          {"n_out", static_cast<double>(w.n_out)},
          {"n", static_cast<double>(w.n_in)},
          {"dtype_bytes", static_cast<double>(byte_width(w.target.dtype))},
          {"rank", static_cast<double>(w.in_shape.size())}};
}

}  // namespace fvk::judge
