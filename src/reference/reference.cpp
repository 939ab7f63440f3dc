// The CPU reference. Written for obviousness, not speed: every output element is computed from its
// coordinates by the definition of the op.
#include "reference/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/float_bits.hpp"
#include "fvk/error.hpp"
#include "fvk/shape.hpp"

namespace fvk::ref {
namespace {

constexpr std::int64_t kNoSource = -1;  // a constant pad's fill position

// Advances a C-order coordinate (last axis fastest). Returns false once it wraps past the end.
bool advance(std::vector<std::int64_t>& coord, const Shape& dims) {
  for (std::size_t a = coord.size(); a-- > 0;) {
    if (++coord[a] < dims[a]) return true;
    coord[a] = 0;
  }
  return false;
}

// Element strides of a dense C-order tensor.
std::vector<std::int64_t> dense_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t a = shape.size(); a-- > 1;) strides[a - 1] = strides[a] * shape[a];
  return strides;
}

void check_data_size(const HostTensor& t, std::string_view what) {
  const auto want = check_dense_shape(t.shape, t.elem_bytes(), what);
  if (t.data.size() != want)
    fail(ErrorCode::InvalidArgument, fmt::format("{} holds {} bytes but shape {} of {} needs {}", what, t.data.size(),
                                                 to_string(t.shape), name(t.dtype), want));
}

// The geometry must be self-consistent (out = in + left + right, pads >= 0) and `given` must be the
// shape it names `given_name`.
void check_geometry(const PadGeometry& g, const Shape& given, const Shape& expected, std::string_view given_name) {
  const auto rank = g.in.size();
  if (g.out.size() != rank || g.left.size() != rank || g.right.size() != rank)
    fail(ErrorCode::ShapeMismatch, fmt::format("pad geometry ranks disagree: in {}, out {}, left {}, right {}", rank,
                                               g.out.size(), g.left.size(), g.right.size()));
  for (std::size_t a = 0; a < rank; ++a) {
    if (g.left[a] < 0 || g.right[a] < 0)
      fail(ErrorCode::NegativePad,
           fmt::format("pad on dim {} is ({}, {}); pads must be >= 0", a, g.left[a], g.right[a]));
    if (g.in[a] < 0 || g.out[a] != g.in[a] + g.left[a] + g.right[a])
      fail(ErrorCode::ShapeMismatch, fmt::format("pad geometry dim {}: out {} != in {} + left {} + right {}", a,
                                                 g.out[a], g.in[a], g.left[a], g.right[a]));
    // Repeated here, not only in infer_pad, so a hand-made geometry cannot make the oracle bounce twice.
    const bool padded = g.left[a] > 0 || g.right[a] > 0;
    if (g.mode != PadMode::Constant && padded && g.in[a] == 0)
      fail(ErrorCode::EmptyDimension, fmt::format("{} pad of dim {} which is empty", name(g.mode), a));
    if (g.mode == PadMode::Reflect && padded && (g.left[a] > g.in[a] - 1 || g.right[a] > g.in[a] - 1))
      fail(ErrorCode::ReflectPadTooLarge, fmt::format("reflect pad ({}, {}) on dim {} of size {}: each pad must be "
                                                      "<= dim - 1",
                                                      g.left[a], g.right[a], a, g.in[a]));
  }
  if (given != expected)
    fail(ErrorCode::ShapeMismatch, fmt::format("{} has shape {} but the pad geometry says {}", given_name,
                                               to_string(given), to_string(expected)));
}

// The input coordinate the forward pad reads for output coordinate `o` on one axis, or kNoSource for
// a constant pad's fill.
std::int64_t source_coord(PadMode mode, std::int64_t o, std::int64_t left, std::int64_t n, std::size_t axis) {
  std::int64_t i = o - left;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::Constant: return kNoSource;
    case PadMode::Reflect:
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
      if (i < 0 || i >= n)
        fail(ErrorCode::ReflectPadTooLarge,
             fmt::format("reflect of output coord {} on dim {} of size {} lands outside the input; each reflect pad "
                         "must be <= dim - 1",
                         o, axis, n));
      return i;
    case PadMode::Replicate:
      if (n == 0)
        fail(ErrorCode::EmptyDimension,
             fmt::format("replicate pad of dim {} which is empty: no element to copy", axis));
      return i < 0 ? 0 : n - 1;
  }
  fail(ErrorCode::Internal, "unknown pad mode");
}

// source_coord for every output coordinate of every axis.
std::vector<std::vector<std::int64_t>> axis_maps(const PadGeometry& g) {
  std::vector<std::vector<std::int64_t>> maps(g.in.size());
  for (std::size_t a = 0; a < g.in.size(); ++a) {
    maps[a].resize(static_cast<std::size_t>(g.out[a]));
    for (std::int64_t o = 0; o < g.out[a]; ++o)
      maps[a][static_cast<std::size_t>(o)] = source_coord(g.mode, o, g.left[a], g.in[a], a);
  }
  return maps;
}

std::vector<std::byte> element_bytes(std::uint64_t bits, std::size_t width, std::string_view what) {
  if (width < 8 && (bits >> (8 * width)) != 0)
    fail(ErrorCode::InvalidArgument, fmt::format("{} 0x{:x} has bits above the element's {} bytes", what, bits, width));
  std::vector<std::byte> bytes(width);
  for (std::size_t k = 0; k < width; ++k) bytes[k] = static_cast<std::byte>((bits >> (8 * k)) & 0xff);
  return bytes;
}

// Calls fn(grad_in_flat, grad_out_flats) for every grad_in element, with the grad_out elements that
// the forward read from it in the one summation order (see reference.hpp).
template <typename Fn>
void for_each_gradient_sum(const PadGeometry& g, Fn&& fn) {
  const auto rank = g.in.size();
  // sources[a][ci]: ascending output coords o on axis a with map(o - left) == ci.
  std::vector<std::vector<std::vector<std::int64_t>>> sources(rank);
  const auto maps = axis_maps(g);
  for (std::size_t a = 0; a < rank; ++a) {
    sources[a].resize(static_cast<std::size_t>(g.in[a]));
    for (std::int64_t o = 0; o < g.out[a]; ++o) {
      const auto ci = maps[a][static_cast<std::size_t>(o)];
      if (ci != kNoSource) sources[a][static_cast<std::size_t>(ci)].push_back(o);
    }
  }
  const auto n_in = static_cast<std::size_t>(numel(g.in));
  if (n_in == 0) return;
  const auto out_strides = dense_strides(g.out);
  std::vector<std::int64_t> ci(rank, 0);
  std::vector<std::int64_t> flats;
  Shape counts(rank);
  std::vector<std::int64_t> k(rank);
  for (std::size_t in_flat = 0; in_flat < n_in; ++in_flat, advance(ci, g.in)) {
    // Odometer over the per-axis lists: k[a] indexes sources[a][ci[a]].
    bool any_empty = false;
    for (std::size_t a = 0; a < rank; ++a) {
      counts[a] = static_cast<std::int64_t>(sources[a][static_cast<std::size_t>(ci[a])].size());
      any_empty = any_empty || counts[a] == 0;
    }
    flats.clear();
    if (!any_empty) {
      std::fill(k.begin(), k.end(), 0);
      do {
        std::int64_t flat = 0;
        for (std::size_t a = 0; a < rank; ++a)
          flat += sources[a][static_cast<std::size_t>(ci[a])][static_cast<std::size_t>(k[a])] * out_strides[a];
        flats.push_back(flat);
      } while (advance(k, counts));
    }
    fn(in_flat, std::span<const std::int64_t>(flats));
  }
}

// Exact widening of one float element to double.
double widen(const HostTensor& t, std::size_t i) {
  switch (t.dtype) {
    case DType::F16: return detail::decode_float(t.get<std::uint16_t>(i), detail::kF16);
    case DType::BF16: return detail::decode_float(t.get<std::uint16_t>(i), detail::kBF16);
    case DType::F32: return static_cast<double>(t.get<float>(i));
    case DType::F64: return t.get<double>(i);
    default: fail(ErrorCode::Internal, "widen of a non-float dtype");
  }
}

void check_float_gradient(const HostTensor& grad_out, std::string_view op) {
  switch (grad_out.dtype) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64: return;
    default:
      fail(ErrorCode::DTypeNotAccepted,
           fmt::format("{} takes grad_out of f16, bf16, f32 or f64; got {}", op, name(grad_out.dtype)));
  }
}

}  // namespace

HostTensor pad(const HostTensor& in, const PadGeometry& g, std::uint64_t fill_bits) {
  check_geometry(g, in.shape, g.in, "input");
  check_data_size(in, "input");
  HostTensor out = HostTensor::zeros(in.dtype, g.out);
  const auto width = in.elem_bytes();
  const auto fill = element_bytes(fill_bits, width, "fill_bits");
  const auto n_out = out.numel();
  if (n_out == 0) return out;
  const auto maps = axis_maps(g);
  const auto in_strides = dense_strides(g.in);
  std::vector<std::int64_t> coord(g.out.size(), 0);
  for (std::size_t i = 0; i < n_out; ++i, advance(coord, g.out)) {
    std::int64_t src = 0;
    bool is_fill = false;
    for (std::size_t a = 0; a < coord.size(); ++a) {
      const auto ci = maps[a][static_cast<std::size_t>(coord[a])];
      if (ci == kNoSource) is_fill = true;
      src += ci * in_strides[a];
    }
    const std::byte* from = is_fill ? fill.data() : in.data.data() + static_cast<std::size_t>(src) * width;
    std::memcpy(out.data.data() + i * width, from, width);
  }
  return out;
}

HostTensor pad_backward_const(const HostTensor& grad_out, const PadGeometry& g) {
  check_geometry(g, grad_out.shape, g.out, "grad_out");
  check_data_size(grad_out, "grad_out");
  HostTensor grad_in = HostTensor::zeros(grad_out.dtype, g.in);
  const auto width = grad_out.elem_bytes();
  const auto n_in = grad_in.numel();
  if (n_in == 0) return grad_in;
  const auto out_strides = dense_strides(g.out);
  std::vector<std::int64_t> ci(g.in.size(), 0);
  for (std::size_t i = 0; i < n_in; ++i, advance(ci, g.in)) {
    std::int64_t src = 0;
    for (std::size_t a = 0; a < ci.size(); ++a) src += (ci[a] + g.left[a]) * out_strides[a];
    std::memcpy(grad_in.data.data() + i * width, grad_out.data.data() + static_cast<std::size_t>(src) * width, width);
  }
  return grad_in;
}

HostTensor pad_backward_sum(const HostTensor& grad_out, const PadGeometry& g, Subnormals f32) {
  if (g.mode == PadMode::Constant)
    fail(ErrorCode::InvalidArgument,
         "pad_backward_sum is for reflect/replicate; a constant pad's backward is "
         "pad_backward_const (a copy)");
  check_float_gradient(grad_out, "pad_backward_sum");
  check_geometry(g, grad_out.shape, g.out, "grad_out");
  check_data_size(grad_out, "grad_out");
  HostTensor grad_in = HostTensor::zeros(grad_out.dtype, g.in);
  const auto width = grad_out.elem_bytes();
  for_each_gradient_sum(g, [&](std::size_t in_flat, std::span<const std::int64_t> out_flats) {
    if (out_flats.empty()) return;  // (every element of a reflect / replicate pad has one)
    if (out_flats.size() == 1) {    // one contributor: its bits, unchanged (-0.0 and NaN payloads too)
      std::memcpy(grad_in.data.data() + in_flat * width,
                  grad_out.data.data() + static_cast<std::size_t>(out_flats[0]) * width, width);
      return;
    }
    // Several: added in order from the first term on (not from +0.0, which would turn -0.0 + -0.0
    // into +0.0).
    if (grad_out.dtype == DType::F64) {
      double acc = grad_out.get<double>(static_cast<std::size_t>(out_flats[0]));
      for (auto o : out_flats.subspan(1)) acc = acc + grad_out.get<double>(static_cast<std::size_t>(o));
      grad_in.set<double>(in_flat, acc);
      return;
    }
    // f16/bf16/f32 accumulate in IEEE f32: plain float adds (SSE on x86-64, no contraction of adds),
    // each operand and result flushed to a signed zero where asked.
    const auto flush = [f32](float x) {
      return f32 == Subnormals::Flush && std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
    };
    const auto term = [&](std::int64_t o) {
      return flush(static_cast<float>(widen(grad_out, static_cast<std::size_t>(o))));
    };
    float acc = term(out_flats[0]);
    for (auto o : out_flats.subspan(1)) acc = flush(acc + term(o));
    switch (grad_out.dtype) {
      case DType::F32: grad_in.set<float>(in_flat, acc); break;
      case DType::F16:
        grad_in.set<std::uint16_t>(
            in_flat, static_cast<std::uint16_t>(detail::encode_float(static_cast<double>(acc), detail::kF16)));
        break;
      case DType::BF16:
        grad_in.set<std::uint16_t>(
            in_flat, static_cast<std::uint16_t>(detail::encode_float(static_cast<double>(acc), detail::kBF16)));
        break;
      default: fail(ErrorCode::Internal, "pad_backward_sum dtype");
    }
  });
  return grad_in;
}

HostTensor pad_backward_exact(const HostTensor& grad_out, const PadGeometry& g) {
  check_float_gradient(grad_out, "pad_backward_exact");
  check_geometry(g, grad_out.shape, g.out, "grad_out");
  check_data_size(grad_out, "grad_out");
  HostTensor grad_in = HostTensor::zeros(DType::F64, g.in);
  for_each_gradient_sum(g, [&](std::size_t in_flat, std::span<const std::int64_t> out_flats) {
    double acc = 0.0;
    for (auto o : out_flats) acc = acc + widen(grad_out, static_cast<std::size_t>(o));
    grad_in.set<double>(in_flat, acc);
  });
  return grad_in;
}

HostTensor masked_fill(const HostTensor& in, const HostTensor& mask, std::uint64_t fill_bits) {
  check_masked_fill(in.shape, mask.dtype, mask.shape);
  check_data_size(in, "input");
  check_data_size(mask, "mask");
  const auto width = in.elem_bytes();
  const auto fill = element_bytes(fill_bits, width, "fill_bits");
  HostTensor out = in;
  for (std::size_t i = 0; i < in.numel(); ++i)
    if (mask.data[i] != std::byte{0}) std::memcpy(out.data.data() + i * width, fill.data(), width);
  return out;
}

HostTensor contiguize(std::span<const std::byte> base, DType dtype, const Shape& shape,
                      std::span<const std::int64_t> strides_elems, std::int64_t offset_elems) {
  if (strides_elems.size() != shape.size())
    fail(ErrorCode::InvalidArgument, fmt::format("view has {} strides for shape {} of rank {}", strides_elems.size(),
                                                 to_string(shape), shape.size()));
  for (std::size_t a = 0; a < shape.size(); ++a)
    if (shape[a] < 0)
      fail(ErrorCode::InvalidArgument, fmt::format("view dim {} is {}; dims must be >= 0", a, shape[a]));
  HostTensor out = HostTensor::zeros(dtype, shape);
  const auto n = out.numel();
  if (n == 0) return out;
  const auto width = byte_width(dtype);
  const auto base_elems = static_cast<std::int64_t>(base.size() / width);

  // The view's lowest and highest element offsets; if both lie inside the base, every access does.
  // Checked arithmetic so absurd strides are an error rather than a wrap.
  std::int64_t lo = offset_elems;
  std::int64_t hi = offset_elems;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    std::int64_t span = 0;
    if (__builtin_mul_overflow(shape[a] - 1, strides_elems[a], &span) ||
        __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
      fail(ErrorCode::InvalidArgument, fmt::format("view offsets overflow 64 bits on dim {}", a));
  }
  if (lo < 0 || hi >= base_elems)
    fail(ErrorCode::InvalidArgument,
         fmt::format("view (shape {}, offset {}) reads elements {}..{} but the base holds {} elements of {}",
                     to_string(shape), offset_elems, lo, hi, base_elems, name(dtype)));

  std::vector<std::int64_t> coord(shape.size(), 0);
  for (std::size_t i = 0; i < n; ++i, advance(coord, shape)) {
    std::int64_t src = offset_elems;
    for (std::size_t a = 0; a < coord.size(); ++a) src += coord[a] * strides_elems[a];
    if (src < 0 || src >= base_elems)  // cannot happen after the range check; kept as the per-access guard
      fail(ErrorCode::InvalidArgument,
           fmt::format("view element {} reads base element {} outside 0..{}", i, src, base_elems - 1));
    std::memcpy(out.data.data() + i * width, base.data() + static_cast<std::size_t>(src) * width, width);
  }
  return out;
}

}  // namespace fvk::ref
