#include "selftest/harness.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/float_bits.hpp"
#include "fkc/catalog.hpp"
#include "fvk/error.hpp"
#include "fvk/tensor_view.hpp"
#include "ops/contiguize.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"
#include "reference/random_tensor.hpp"
#include "reference/reference.hpp"

namespace fvk::selftest {
namespace {

PadSpec spec_of(const Target& t, const Case& c) { return PadSpec{t.mode, c.left, c.right}; }

double unit_roundoff(DType d) {
  switch (d) {
    case DType::F64: return std::ldexp(1.0, -53);
    case DType::F32: return std::ldexp(1.0, -24);
    case DType::F16: return std::ldexp(1.0, -11);
    default: return std::ldexp(1.0, -8);
  }
}

}  // namespace

// See harness.hpp.
std::optional<std::string> first_difference(const HostTensor& got, const HostTensor& want) {
  if (got.shape != want.shape)
    return fmt::format("shape {} != expected {}", to_string(got.shape), to_string(want.shape));
  const std::size_t w = got.elem_bytes();
  for (std::size_t i = 0; i < got.numel(); ++i)
    if (std::memcmp(got.data.data() + i * w, want.data.data() + i * w, w) != 0) {
      std::uint64_t a = 0, b = 0;
      std::memcpy(&a, got.data.data() + i * w, w);
      std::memcpy(&b, want.data.data() + i * w, w);
      return fmt::format("element {} is 0x{:0{}x}, expected 0x{:0{}x}", i, a, 2 * w, b, 2 * w);
    }
  return std::nullopt;
}

double element_as_double(const HostTensor& t, std::size_t i) {
  switch (t.dtype) {
    case DType::F64: return t.get<double>(i);
    case DType::F32: return t.get<float>(i);
    case DType::F16: return detail::decode_float(t.get<std::uint16_t>(i), detail::kF16);
    case DType::BF16: return detail::decode_float(t.get<std::uint16_t>(i), detail::kBF16);
    default: fail(ErrorCode::Internal, "element_as_double on a non-float tensor");
  }
}

std::vector<std::string> missing_features(Context& ctx, const Target& target) {
  const auto missing = ops::missing_features(ctx.device_info(), fkc::require_contract(target.kernel));
  return {missing.begin(), missing.end()};
}

std::vector<Case> cases_for(const Target& t, bool bandwidth_case) {
  std::vector<Case> out;
  std::mt19937_64 rng(std::hash<std::string>{}(t.kernel + std::string(name(t.dtype))));
  const std::int64_t dims[] = {1, 2, 3, 5, 7, 4};
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  auto fill_for = [&]() {
    if (t.dtype == DType::Bool) return Scalar::from_bool(true);
    if (is_float(t.dtype)) return Scalar::from_double(-1.5);
    return Scalar::from_int(is_signed_int(t.dtype) ? -7 : 9);
  };
  for (int rank = 1; rank <= kMaxRank; ++rank) {
    for (int variant = 0; variant < 3; ++variant) {  // pads 0 / 1 / the largest allowed
      Case c;
      c.seed = rng();
      c.fill = fill_for();
      for (int a = 0; a < rank; ++a) c.shape.push_back(dims[pick(std::size(dims))]);
      // The innermost dim odd and above 4 in one case, so rows straddle 16-byte chunks.
      if (variant == 1) c.shape.back() = 13;
      c.left.assign(rank, 0);
      c.right.assign(rank, 0);
      if (t.op == Op::Pad || t.op == Op::PadBackward) {
        // Pad at most three axes so the output of rank-8 cases stays small.
        for (int k = 0; k < std::min(rank, 3); ++k) {
          const auto a = pick(rank);
          const std::int64_t n = c.shape[a];
          const std::int64_t largest = t.mode == PadMode::Reflect ? n - 1 : n + 1;
          const std::int64_t p = variant == 0 ? 0 : variant == 1 ? std::min<std::int64_t>(1, largest) : largest;
          c.left[a] = p;
          c.right[a] = (variant == 2 && k == 0)
                           ? largest
                           : static_cast<std::int64_t>(pick(2)) * std::min<std::int64_t>(1, largest);
        }
      }
      out.push_back(std::move(c));
    }
  }
  // Empty tensors: a 0-sized dim (constant pad fills the output from nothing; others move nothing).
  if (t.op == Op::MaskedFill || t.op == Op::Copy || t.op == Op::Contiguize || t.mode == PadMode::Constant) {
    Case c;
    c.seed = rng();
    c.fill = fill_for();
    c.shape = {3, 0, 5};
    c.left = {0, 2, 1};
    c.right = {1, 1, 0};
    if (t.op != Op::Pad && t.op != Op::PadBackward) c.left = c.right = {0, 0, 0};
    out.push_back(c);
  }
  // Long odd rows: the kernels' in-row fast path at every byte alignment of the source.
  // 8300: rows of 8 KiB and more even for 1-byte elements (the kernels' long-row path).
  for (std::int64_t width : {203, 77, 613, 8300}) {
    Case c;
    c.seed = rng();
    c.fill = fill_for();
    c.shape = {5, width};
    c.left = {1, 3};
    c.right = {2, 6};
    if (t.op != Op::Pad && t.op != Op::PadBackward) c.left = c.right = {0, 0};
    out.push_back(c);
  }
  // Rows around the 32-byte threshold of pad.comp's edge region and innermost pads wider than a
  // 16-byte chunk: every row boundary owns several edge chunks, neighbours share none.
  if (t.op == Op::Pad || t.op == Op::PadBackward) {
    struct Edge {
      Shape shape;
      std::vector<std::int64_t> left, right;
    };
    for (const auto& e : {Edge{{4, 33}, {1, 20}, {2, 7}}, Edge{{2, 3, 40}, {0, 2, 35}, {0, 0, 39}},
                          Edge{{6, 8}, {0, 5}, {0, 7}}, Edge{{3, 16}, {1, 0}, {1, 0}}, Edge{{7, 5}, {2, 4}, {0, 4}}}) {
      Case c;
      c.seed = rng();
      c.fill = fill_for();
      c.shape = e.shape;
      c.left = e.left;
      c.right = e.right;
      out.push_back(c);
    }
  }
  // A destination over 1 MiB, where pad.comp runs its tile pass on these rows of about 4 KiB (pass
  // 5 or 6, by element width and edges); below 1 MiB other passes take them.
  if (t.op == Op::Pad || (t.op == Op::PadBackward && t.mode == PadMode::Constant)) {
    Case c;
    c.seed = rng();
    c.fill = fill_for();
    const auto width = static_cast<std::int64_t>(byte_width(t.dtype));
    c.shape = {4, 64, (std::int64_t{1} << 20) / width / 256 + 5};
    c.left = {0, 1, 3};
    c.right = {0, 2, 5};
    out.push_back(c);
    // The same with rows under 512 bytes: the tile pass with two chunks per invocation (pass 5).
    c.seed = rng();
    c.shape = {2, (std::int64_t{1} << 20) / width / 92 + 1, 40};
    c.left = {0, 2, 1};
    c.right = {0, 1, 5};
    out.push_back(c);
  }
  if (bandwidth_case) {
    Case c;
    c.seed = rng();
    c.fill = fill_for();
    c.shape = {4, 250, 250};
    c.left = {0, 3, 3};
    c.right = {0, 3, 3};
    if (t.op != Op::Pad && t.op != Op::PadBackward) c.left = c.right = {0, 0, 0};
    out.push_back(c);
  }
  return out;
}

ContextOptions context_options(const Target& target, ContextOptions base) {
  if (ops::is_portable(target))
    for (const auto& f : ops::features_portable_builds_do_without())
      if (std::find(base.disabled_features.begin(), base.disabled_features.end(), f) == base.disabled_features.end())
        base.disabled_features.emplace_back(f);
  return base;
}

Outcome run_case(Context& ctx, const Target& t, const Case& c) {
  if (const auto dispatched = ops::dispatched_kernel(ctx.device_info(), t); dispatched != t.kernel)
    fail(ErrorCode::Internal, fmt::format("{} {}: this context dispatches {}; open it with selftest::context_options",
                                          t.kernel, name(t.dtype), dispatched));
  std::mt19937_64 rng(c.seed);
  Outcome o;
  const std::size_t w = byte_width(t.dtype);
  HostTensor got, want;
  if (t.op == Op::Pad) {
    const PadGeometry g = infer_pad(c.shape, spec_of(t, c));
    const HostTensor in = ref::random_bits(t.dtype, c.shape, rng);
    const Tensor out = pad(ctx, ctx.upload(in), spec_of(t, c), c.fill);
    o.gpu_ns = ctx.last_kernel_ns();
    got = ctx.download(out);
    want = ref::pad(in, g, t.mode == PadMode::Constant ? c.fill.bits(t.dtype) : 0);
    o.bytes = (t.mode == PadMode::Constant ? numel(g.in) + numel(g.out) : 2 * numel(g.out)) * w;
  } else if (t.op == Op::Contiguize) {
    // An awkward view of a dense base: axes reversed, axis 0 flipped, so strides are negative and
    // non-monotonic and the start offset is not 0.
    const HostTensor base = ref::random_bits(t.dtype, c.shape, rng);
    const Tensor dev = ctx.upload(base);
    TensorView view(dev);
    std::vector<int> order;
    for (int a = static_cast<int>(c.shape.size()) - 1; a >= 0; --a) order.push_back(a);
    view = view.permute(order);
    if (!c.shape.empty() && view.layout().shape[0] > 0) view = view.flip(0);
    const auto& v = view.layout();
    const Tensor dst = ctx.empty(t.dtype, v.shape);
    ops::run_timed(ctx, [&](rt::Stream& s) { ops::record_contiguize(s, v, *dev.storage(), *dst.storage()); });
    o.gpu_ns = ctx.last_kernel_ns();
    got = ctx.download(dst);
    want = ref::contiguize(base.data, t.dtype, v.shape, v.strides, v.offset);
    o.bytes = 2 * want.nbytes();
  } else if (t.op == Op::Copy) {
    const HostTensor in = ref::random_bits(t.dtype, c.shape, rng);
    const Tensor src = ctx.upload(in);
    const Tensor dst = ctx.empty(t.dtype, c.shape);
    ops::run_timed(ctx, [&](rt::Stream& s) { ops::record_copy(s, *src.storage(), *dst.storage(), in.nbytes()); });
    o.gpu_ns = ctx.last_kernel_ns();
    got = ctx.download(dst);
    want = in;
    o.bytes = 2 * in.nbytes();
  } else if (t.op == Op::MaskedFill) {
    const HostTensor in = ref::random_bits(t.dtype, c.shape, rng);
    const HostTensor mask = ref::random_mask(c.shape, 0.3, rng);
    const Tensor out = masked_fill(ctx, ctx.upload(in), ctx.upload(mask), c.fill);
    o.gpu_ns = ctx.last_kernel_ns();
    got = ctx.download(out);
    want = ref::masked_fill(in, mask, c.fill.bits(t.dtype));
    o.bytes = static_cast<std::uint64_t>(numel(c.shape)) * (2 * w + 1);
  } else {
    Shape grad_out_shape = c.shape;
    for (std::size_t a = 0; a < c.shape.size(); ++a) grad_out_shape[a] += c.left[a] + c.right[a];
    const PadGeometry g = infer_pad_backward(grad_out_shape, spec_of(t, c));
    const HostTensor grad_out = t.mode == PadMode::Constant ? ref::random_bits(t.dtype, grad_out_shape, rng)
                                                            : ref::random_values(t.dtype, grad_out_shape, rng);
    const Tensor grad_in = pad_backward(ctx, ctx.upload(grad_out), spec_of(t, c), t.algorithm);
    o.gpu_ns = ctx.last_kernel_ns();
    got = ctx.download(grad_in);
    if (t.mode == PadMode::Constant) {
      want = ref::pad_backward_const(grad_out, g);
      o.bytes = 2 * static_cast<std::uint64_t>(numel(g.in)) * w;
    } else if (t.exact) {
      want = ref::pad_backward_sum(grad_out, g);
      o.bytes = static_cast<std::uint64_t>(numel(g.in) + numel(g.out)) * w;
    } else {
      // Atomic: every contribution must arrive; the order of the adds is free. Bound the error of a
      // k-term sum by (k + 1) * u * sum|x| (each add rounds once, plus the final narrowing).
      o.bytes = 3 * static_cast<std::uint64_t>(numel(g.out)) * w;
      const HostTensor exact = ref::pad_backward_exact(grad_out, g);
      HostTensor abs_in = grad_out, ones = grad_out;
      for (std::size_t i = 0; i < abs_in.numel(); ++i) {
        const std::size_t b = i * w + w - 1;  // sign bit lives in the top byte
        abs_in.data[b] &= std::byte{0x7F};
        std::memset(ones.data.data() + i * w, 0, w);
        const auto one = t.dtype == DType::F64   ? std::uint64_t{0x3FF0000000000000ull}
                         : t.dtype == DType::F32 ? std::uint64_t{0x3F800000u}
                         : t.dtype == DType::F16 ? std::uint64_t{0x3C00u}
                                                 : std::uint64_t{0x3F80u};
        std::memcpy(ones.data.data() + i * w, &one, w);
      }
      const HostTensor abs_sum = ref::pad_backward_exact(abs_in, g);
      const HostTensor counts = ref::pad_backward_exact(ones, g);
      const double u = unit_roundoff(t.dtype);
      for (std::size_t i = 0; i < got.numel(); ++i) {
        const double x = element_as_double(got, i), e = exact.get<double>(i);
        const double bound = (counts.get<double>(i) + 1) * u * abs_sum.get<double>(i) + 1e-300;
        const double err = std::fabs(x - e);
        o.max_error = std::max(o.max_error, err / bound);
        if (!(err <= bound)) {
          o.pass = false;
          o.detail = fmt::format("element {} is {}, exact sum {}, error {} above bound {} ({} contributions)", i, x, e,
                                 err, bound, counts.get<double>(i));
          break;
        }
      }
      return o;
    }
  }
  if (auto diff = first_difference(got, want)) {
    o.pass = false;
    o.detail = *diff;
  }
  return o;
}

}  // namespace fvk::selftest
