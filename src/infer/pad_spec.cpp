// The pad rules, written once. Every message names the argument and the rule it broke.
#include "fvk/pad_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "fvk/error.hpp"

namespace fvk {

std::string_view name(PadMode mode) noexcept {
  switch (mode) {
    case PadMode::Constant: return "constant";
    case PadMode::Reflect: return "reflect";
    case PadMode::Replicate: return "replicate";
  }
  return "?";
}

PadMode parse_pad_mode(std::string_view text) {
  if (text == "constant") return PadMode::Constant;
  if (text == "reflect") return PadMode::Reflect;
  if (text == "replicate" || text == "edge") return PadMode::Replicate;
  fail(ErrorCode::InvalidArgument, fmt::format("mode '{}' is not a pad mode (constant, reflect or replicate)", text));
}

PadSpec PadSpec::from_torch(PadMode mode, std::size_t rank, std::span<const std::int64_t> pads) {
  if (pads.size() % 2 != 0)
    fail(ErrorCode::InvalidArgument,
         fmt::format("pad has {} values; it needs (left, right) pairs, last dimension first", pads.size()));
  if (pads.size() / 2 > rank)
    fail(ErrorCode::InvalidArgument,
         fmt::format("pad has {} pairs but the tensor has rank {}; at most one pair per dimension", pads.size() / 2,
                     rank));
  PadSpec spec;
  spec.mode = mode;
  spec.left.assign(rank, 0);
  spec.right.assign(rank, 0);
  for (std::size_t p = 0; p < pads.size() / 2; ++p) {
    spec.left[rank - 1 - p] = pads[2 * p];
    spec.right[rank - 1 - p] = pads[2 * p + 1];
  }
  return spec;
}

namespace {

constexpr std::int64_t kIndexLimit = std::numeric_limits<std::uint32_t>::max();
// Coordinates along one axis are signed 32-bit in the kernels (c - left can be negative).
constexpr std::int64_t kDimLimit = std::numeric_limits<std::int32_t>::max();

void check_common(const Shape& given, const PadSpec& spec, std::string_view given_name) {
  const auto rank = given.size();
  if (rank < 1 || rank > static_cast<std::size_t>(kMaxRank))
    fail(ErrorCode::RankOutOfRange,
         fmt::format("{} has rank {}; pad kernels take rank 1..{}", given_name, rank, kMaxRank));
  if (spec.left.size() != rank || spec.right.size() != rank)
    fail(ErrorCode::ShapeMismatch, fmt::format("pads have {} left / {} right entries for {} of rank {}",
                                               spec.left.size(), spec.right.size(), given_name, rank));
  for (std::size_t a = 0; a < rank; ++a) {
    if (given[a] < 0)
      fail(ErrorCode::InvalidArgument, fmt::format("{} dim {} is {}; dims must be >= 0", given_name, a, given[a]));
    // Before any sum with the pads, so that in + left + right cannot overflow.
    if (given[a] > kDimLimit)
      fail(ErrorCode::IndexOverflow,
           fmt::format("{} {} has a dim of {}; pad kernels take dims up to 2^31-1 (signed 32-bit coordinates)",
                       given_name, to_string(given), given[a]));
    if (spec.left[a] < 0 || spec.right[a] < 0)
      fail(ErrorCode::NegativePad, fmt::format("pad on dim {} is ({}, {}); pads must be >= 0 (cropping is not a pad)",
                                               a, spec.left[a], spec.right[a]));
    if (spec.left[a] > kIndexLimit || spec.right[a] > kIndexLimit)
      fail(ErrorCode::IndexOverflow,
           fmt::format("pad on dim {} is ({}, {}); pads must be at most 2^32-1 (kernels index with 32 bits)", a,
                       spec.left[a], spec.right[a]));
  }
}

void check_mode_rules(const PadGeometry& g) {
  for (std::size_t a = 0; a < g.in.size(); ++a) {
    const bool padded = g.left[a] > 0 || g.right[a] > 0;
    if (g.mode != PadMode::Constant && g.in[a] == 0 && padded)
      fail(ErrorCode::EmptyDimension,
           fmt::format("{} pad of input dim {} which is empty (size 0): there is no element to {}", name(g.mode), a,
                       g.mode == PadMode::Reflect ? "reflect" : "replicate"));
    if (g.mode == PadMode::Reflect && (g.left[a] > g.in[a] - 1 || g.right[a] > g.in[a] - 1) && padded)
      fail(ErrorCode::ReflectPadTooLarge,
           fmt::format("reflect pad ({}, {}) on dim {} of size {}: each pad must be <= dim - 1 = {}", g.left[a],
                       g.right[a], a, g.in[a], g.in[a] - 1));
  }
  // 32-bit indexing: every element index fits in u32 and every dim in i32. An empty tensor (a dim of
  // 0 anywhere) has no index, so only its dims count.
  for (const Shape* s : {&g.in, &g.out}) {
    for (auto d : *s)
      if (d > kDimLimit)
        fail(ErrorCode::IndexOverflow,
             fmt::format("{} tensor {} has a dim of {}; pad kernels take dims up to 2^31-1 (signed 32-bit coordinates)",
                         s == &g.in ? "input" : "output", to_string(*s), d));
    if (std::find(s->begin(), s->end(), 0) != s->end()) continue;
    std::int64_t n = 1;
    for (auto d : *s) {
      n *= d;  // at most (2^32-1) * (2^31-1) before the check: no overflow
      if (n > kIndexLimit)
        fail(ErrorCode::IndexOverflow,
             fmt::format("{} tensor {} has more than 2^32-1 elements; kernels index with 32 bits",
                         s == &g.in ? "input" : "output", to_string(*s)));
    }
  }
}

}  // namespace

PadGeometry infer_pad(const Shape& in, const PadSpec& spec) {
  check_common(in, spec, "input");
  PadGeometry g{spec.mode, in, in, spec.left, spec.right};
  for (std::size_t a = 0; a < in.size(); ++a) {
    g.out[a] = in[a] + spec.left[a] + spec.right[a];
    if (g.out[a] > kDimLimit)
      fail(ErrorCode::IndexOverflow,
           fmt::format("output dim {} would be {} + {} + {} = {}; pad kernels take dims up to 2^31-1 (signed 32-bit "
                       "coordinates)",
                       a, in[a], spec.left[a], spec.right[a], g.out[a]));
  }
  check_mode_rules(g);
  return g;
}

PadGeometry infer_pad_backward(const Shape& grad_out, const PadSpec& spec) {
  check_common(grad_out, spec, "grad_out");
  PadGeometry g{spec.mode, grad_out, grad_out, spec.left, spec.right};
  for (std::size_t a = 0; a < grad_out.size(); ++a) {
    g.in[a] = grad_out[a] - spec.left[a] - spec.right[a];
    if (g.in[a] < 0)
      fail(ErrorCode::ShapeMismatch,
           fmt::format("grad_out dim {} is {} but its pads sum to {}: grad_out must be at least as large as the pads",
                       a, grad_out[a], spec.left[a] + spec.right[a]));
  }
  check_mode_rules(g);
  return g;
}

void check_out_shape(const PadGeometry& g, const Shape& out, std::string_view out_name) {
  if (out.size() != g.out.size())
    fail(ErrorCode::ShapeMismatch, fmt::format("{} has rank {} but the padded shape {} has rank {}", out_name,
                                               out.size(), to_string(g.out), g.out.size()));
  for (std::size_t a = 0; a < out.size(); ++a)
    if (out[a] != g.out[a])
      fail(ErrorCode::ShapeMismatch, fmt::format("{} dim {} is {} but in_shape[{}] + left + right = {} + {} + {} = {}",
                                                 out_name, a, out[a], a, g.in[a], g.left[a], g.right[a], g.out[a]));
}

void check_masked_fill(const Shape& input, DType mask_dtype, const Shape& mask) {
  if (mask_dtype != DType::Bool)
    fail(ErrorCode::DTypeNotAccepted,
         fmt::format("mask has dtype {}; masked_fill takes a bool mask", name(mask_dtype)));
  if (mask != input)
    fail(ErrorCode::ShapeMismatch,
         fmt::format("mask shape {} differs from input shape {}; masked_fill does not broadcast", to_string(mask),
                     to_string(input)));
  if (numel(input) > kIndexLimit)
    fail(ErrorCode::IndexOverflow, "input has more than 2^32-1 elements; kernels index with 32 bits");
}

}  // namespace fvk
