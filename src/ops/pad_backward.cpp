// Pad backward: constant mode is a gather (pad.comp, MODE 3); reflect / replicate either gather
// deterministically (pad_backward_det.comp) or scatter with atomics (pad_backward_atomic.comp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <span>
#include <string>

#include "fvk/error.hpp"
#include "ops/launch.hpp"
#include "ops/pad_family.hpp"
#include "ops/shape_constant.hpp"

namespace fvk::ops {

namespace {

// pad_backward_det.comp's passes (its REGION: one SPIR-V module each).
constexpr std::uint32_t kOnePass = 0, kCopyPass = 1, kEdgePass = 2, kMultiRowPass = 3, kRowPass = 4, kTilePass = 5,
                        kLongEdgePass = 6, kTileSingleRows = 7, kTileSingleRowsSubgroups = 8, kWorkgroupEdgePass = 9,
                        kInterleavedPass = 10, kInterleavedMirrorsPass = 11, kElementPass = 12;

// Replicate rows with long pads: up to this many edge chunks take pass 9 (a workgroup each, which
// loads a long run's terms together for one invocation to add; on the H200, audio's 128 edge
// chunks of 513-term sums: f16/bf16 0.54-0.56x the time of pass 6, f32 0.88x, f64 0.95x), more
// take pass 6 (an invocation each: many chains side by side, none waiting for a workgroup).
constexpr std::uint64_t kWorkgroupEdgeChunks = 4096;

// Chunks one workgroup of the copy pass writes (256 invocations, four chunks each), in pass 1 and
// in the copy workgroups of passes 10 and 11.
constexpr std::uint64_t kCopyGroupChunks = 1024;

// Chunks per invocation of the tile passes (5, 7, 8): pad_backward_det.comp's TILE_PER, the same
// rule.
std::uint64_t tile_chunks_per_invocation(std::uint32_t pass, DType dtype) {
  return pass == kTileSingleRows && byte_width(dtype) >= 4 ? 1 : 2;
}

// The atomic backward's pass 1 on replicate: invocations for one side of a row with an innermost pad
// of p elements, each summing every such-th element of the side (eight loads at a time) and adding
// the sum once. One per 16 elements up to 8 (few adds on one address: each add's compare-and-swap
// loop waits out a round trip per failed attempt), and more only so that none sums more than 256
// (devices that end long loops). The shader's side_lanes, same formula. On the H200, audio
// (pads of 512): 0.66x the time of an add per element on f16/f32, 0.75x bf16, 0.89x f64.
std::uint64_t replicate_side_lanes(std::uint64_t p) {
  return std::max<std::uint64_t>((p + 255) / 256, std::min<std::uint64_t>(8, (p + 15) / 16));
}

// Contributors along axis a of the grad_in element that has the most of them: reflect adds at most
// a left and a right mirror; replicate gives the edge element its whole pad (both pads for n = 1).
std::uint64_t max_contributors(const PadGeometry& g, std::size_t a) {
  const auto n = static_cast<std::uint64_t>(g.in[a]);
  const auto l = static_cast<std::uint64_t>(g.left[a]), r = static_cast<std::uint64_t>(g.right[a]);
  if (g.mode == PadMode::Reflect) return 1 + (l > 0) + (r > 0);
  return n == 1 ? l + r + 1 : std::max(l, r) + 1;
}

// How the deterministic backward runs a coalesced geometry: one pass, or on tensors of 4 MiB and
// more with rows of two chunks and more, where at most 5% of the rows have several contributors on
// an outer axis, a copy pass over the chunks of single contributors, an edge pass of `slots`
// invocations per grad_in row, and a pass over the rows with several outer contributors where
// there are any (one invocation per chunk of them). On the H200: image (1.2% such rows)
// 21-62% -> 47-77% of copy with the passes; rank5 (12% such rows) measured 9-36% with them against
// 16-38% with one pass, so the 5% limit stays. f64 reflect with rows of whole chunks of at most
// 8 KiB is split at any share (det_passes: faster than the tile pass there).
//
// Tensors under 4 MiB whose rows are whole chunks, at most 256 of them, take the row pass instead of
// the one pass: each workgroup writes 256 / R rows of R chunks in column order, after one lookup of
// each row's outer axes. On the H200: small ([8,3,32,32]) 0.81-0.98x the time of the previous one
// pass; on rank5 (33-134 MB, 12% of rows with several outer contributors, in every subgroup of the
// column order) the row pass took 1.02-1.79x the one pass's time, so larger tensors keep that.
// Under 1 MiB, the element pass takes those with short contributor lists (see det_passes).
//
// Tensors of 4 MiB and more that are not split, with rows of a chunk or more, take the tile pass
// instead of the one pass: each workgroup writes 512 consecutive chunks (pass 7 on 4- and 8-byte
// elements 256: tile_chunks_per_invocation), the copy chunks at once and
// the others from a queue in shared memory. Where the rows are whole chunks and some have several
// outer contributors, those rows go to the multi-row pass and the tile pass skips them (see
// det_passes).
struct DetPasses {
  bool split = false;            // copy + edge (+ multi-row) passes instead of one
  bool multi_row = false;        // with the multi-row pass
  std::uint64_t slots = 0;       // edge pass: invocations per grad_in row
  bool row_pass = false;         // the row pass instead of the one pass
  bool tile = false;             // the tile pass instead of the others
  bool tile_multi = false;       // the tile pass without the multi-contributor rows + the multi-row pass
  bool subgroup_queue = false;   // tile_multi with each subgroup's own queue (REGION 8, f32)
  bool long_runs = false;        // the edge pass's build for replicate pads of 128 and more
  bool workgroup_edges = false;  // long_runs with a workgroup per edge chunk (pass 9), for few chunks
  std::uint64_t row_chunks = 0;  // row pass: chunks per grad_in row
  std::uint64_t interleave = 0;  // split as pass 10 or 11: copy workgroups per edge one (0: not)
  bool windows = false;          // pass 10 (reflect: mirrors from a 16-byte window), not 11
  bool element = false;          // the element pass (12) instead of the others
};

// An estimate, meant as an upper bound, of the loop iterations of one chunk of
// pad_backward_det.comp on the coalesced geometry: per outer contributor combination a few for the
// odometer and a few per term of each element's innermost run (replicate runs are long at the row
// ends; a chunk holds the ends of up to ceil(chunk / n) + 1 rows). `single_row`: a chunk of a row
// with one outer combination (the edge rounds of passes 10 and 11).
std::uint64_t iterations_per_chunk(const PadGeometry& g, DType dtype, bool single_row = false) {
  const std::uint64_t chunk = 16 / byte_width(dtype);
  const std::size_t inner = g.in.size() - 1;
  const auto n = static_cast<std::uint64_t>(g.in[inner]);
  std::uint64_t outer = 1;
  for (std::size_t a = 0; a < inner && !single_row; ++a)
    outer = std::min<std::uint64_t>(outer * max_contributors(g, a), 1ull << 40);
  // Innermost contributors of one chunk's elements together.
  const std::uint64_t rows_in_chunk = (chunk + n - 1) / n + 1;
  const std::uint64_t inner_terms =
      g.mode == PadMode::Reflect
          ? 3 * chunk
          : chunk + rows_in_chunk * (static_cast<std::uint64_t>(g.left[inner] + g.right[inner]) + 1);
  // Measured on lavapipe: at most ~4.4 iterations per term and element (a chunk summing 4 x 3721
  // single terms ran past 65535; 4 x 4225 terms across a row end did not).
  return 64 + outer * (8 + 5 * inner_terms);
}

// Coordinates of outer axis a with several contributors: reflect's 1..left and n-1-right..n-2,
// replicate's 0 (left pad) and n-1 (right pad): two intervals, counted once where they overlap (as
// pad_backward_det.comp's multi_coords).
std::uint64_t multi_coords(const PadGeometry& g, std::size_t a) {
  const auto n = static_cast<std::int64_t>(g.in[a]);
  const std::int64_t left = g.left[a], right = g.right[a];
  const bool reflect = g.mode == PadMode::Reflect;
  const std::int64_t s1 = reflect ? 1 : 0, e1 = s1 + (reflect ? left : left > 0);
  const std::int64_t s2 = reflect ? n - 1 - right : n - 1, e2 = s2 + (reflect ? right : right > 0);
  const std::int64_t overlap = std::max<std::int64_t>(0, std::min(e1, e2) - std::max(s1, s2));  // 0 if one is empty
  return static_cast<std::uint64_t>((e1 - s1) + (e2 - s2) - overlap);
}

DetPasses det_passes(const PadGeometry& g, DType dtype, bool always_split) {
  const std::uint64_t chunk = 16 / byte_width(dtype);
  const auto n_in = static_cast<std::uint64_t>(numel(g.in));
  const auto n = static_cast<std::uint64_t>(g.in.back());
  const auto left = static_cast<std::uint64_t>(g.left.back()), right = static_cast<std::uint64_t>(g.right.back());
  DetPasses p;
  // Edge chunks per row: those touching elements 0..left and n-1-right..n-1 (reflect), or elements
  // 0 and n-1 (replicate: two chunks however wide the pads).
  p.slots = g.mode == PadMode::Reflect ? (left + right + 1) / chunk + 3 : 2;
  double single_rows = 1;  // fraction of rows with one contributor on every outer axis
  for (std::size_t a = 0; a + 1 < g.in.size(); ++a) {
    const auto d = static_cast<double>(g.in[a]);
    single_rows *= (d - static_cast<double>(multi_coords(g, a))) / d;
  }
  const bool large = n_in * byte_width(dtype) >= (4u << 20);
  // Replicate pads of 128 and more on the innermost axis: the edge pass sums its long runs with 128
  // loads in flight (64 for 8-byte elements) instead of 32. On the H200 (audio, pads of 512): f32
  // 0.89x the time, f64 0.93x, f16/bf16 0.96-1.01x (their time goes to widening each term).
  p.long_runs = g.mode == PadMode::Replicate && std::max(left, right) >= 128;
  // Split rows of whole chunks up to 8 KiB (without long runs): the copy and edge passes as one
  // dispatch of interleaved workgroups (pass 10 or 11), K copy workgroups of 1024 chunks, then one
  // edge workgroup for the rows that start in them, K = max(1, 256 / (slots * ceil(1024 * chunk /
  // n))): one round of the edge workgroup's 256 invocations where a copy workgroup's rows allow,
  // more (K = 1) where they do not. Edge chunks then read grad_out while the copy workgroups beside
  // them stream the same rows (from the cache, not scattered memory reads). Pass 10 takes reflect's
  // mirrors from one 16-byte window where every chunk's mirrors lie in one pad of a chunk or less
  // (pass 11 loads each mirror); both keep the pipeline at the copy pass's registers where they can
  // (32 on the H200, pass 11 on 2-byte elements 48). Measured on the H200 against the split passes,
  // image, 3 rounds: f16/bf16 0.76-0.81x the time (65-67% -> 82-86% of copy), f64 0.92-0.95x, and
  // against the tile pass with each subgroup's own queue, f32 0.92-0.93x.
  constexpr std::uint64_t kInterleavedRowBytes = 8192;
  const std::uint64_t rows_per_copy_group = (kCopyGroupChunks * chunk + n - 1) / n;
  const std::uint64_t per_block = std::max<std::uint64_t>(1, 256 / (p.slots * rows_per_copy_group));
  const bool interleavable =
      !p.long_runs && n >= 2 * chunk && n % chunk == 0 && n * byte_width(dtype) <= kInterleavedRowBytes &&
      n_in + 2 * per_block * kCopyGroupChunks * chunk <= std::numeric_limits<std::uint32_t>::max();
  // f32 rows of whole chunks under 8 KiB with a few rows of several outer contributors, where passes
  // 10 and 11 cannot run (rows of one chunk, replicate pads of 128 and more): the tile pass with
  // each subgroup's own queue and the multi-row pass beside it, not split. Measured on the H200
  // against the split passes (image, before passes 10 and 11): f32 0.93-0.94x the time; f64
  // 0.98-1.02x and f16/bf16 1.00-1.46x stay split.
  constexpr std::uint64_t kSubgroupQueueRowBytes = 8192;
  p.subgroup_queue = large && !always_split && !interleavable && dtype == DType::F32 &&
                     n * byte_width(dtype) < kSubgroupQueueRowBytes && n % chunk == 0 && single_rows >= 0.95 &&
                     single_rows < 1;
  // Reflect on 8-byte elements takes the interleaved pass and the multi-row pass beside it at any
  // share of rows with several outer contributors: on the H200 (rank5, 12% of rows, three A/B runs
  // of two rounds) 0.88x the time of the tile pass beside the multi-row pass, 78-79% -> 89-90% of
  // copy. The other rows stay on the tile pass: split took replicate f64 1.05x the time, f32
  // 1.21-1.24x, f16/bf16 1.06-1.34x (docs/data/h200_ab_det_rank5_split.md).
  const bool reflect_b8 = large && interleavable && g.mode == PadMode::Reflect && byte_width(dtype) == 8;
  const bool measured_faster = (large && single_rows >= 0.95 && !p.subgroup_queue) || reflect_b8 || always_split;
  p.split = measured_faster && n >= 2 * chunk &&
            n_in / n * std::max<std::uint64_t>(p.slots, 32) <= std::numeric_limits<std::uint32_t>::max();
  p.multi_row = p.split && single_rows < 1;
  p.row_chunks = n / chunk;
  // grad_in under 1 MiB whose every coordinate has at most 4 contributors on each axis: the element
  // pass, an invocation per element. Such tensors are latency-bound, and with a chunk per invocation
  // the op waited on its edge chunks' sums, CHUNK of them one after the other (a probe that made
  // every chunk of the row pass a copy took 0.60-0.79x its time on the small set). Measured on the
  // H200 against the row pass (docs/data/h200_ab_det_element_pass.md, three rounds): the small set
  // 0.64-0.80x the time (52-66% -> 76-90% of copy), [8,3,64,64] 0.68-0.85x, [8,8,64,64] on f16/bf16
  // (512 KiB) replicate 0.83-0.86x and reflect 1.00-1.03x. A first form with two 2-byte elements per
  // invocation took f16 [8,16,64,64] reflect (1 MiB) 1.09x, so the limit is under 1 MiB. Longer
  // lists (replicate pads of 4 and more) keep the row pass, whose runs load eight terms at a time.
  constexpr std::uint64_t kElementPassBytes = 1u << 20;
  bool short_lists = true;
  for (std::size_t a = 0; a < g.in.size(); ++a) short_lists = short_lists && max_contributors(g, a) <= 4;
  p.element = !always_split && !large && short_lists && n_in * byte_width(dtype) < kElementPassBytes;
  p.row_pass = !p.element && !p.split && !large && n % chunk == 0 && p.row_chunks <= 256;  // n >= 1, so R >= 1
  p.workgroup_edges = p.long_runs && n_in / n * p.slots <= kWorkgroupEdgeChunks;
  if (p.split && interleavable) {
    p.interleave = per_block;
    p.windows = g.mode == PadMode::Replicate || (left <= chunk && right <= chunk && n > left + right + chunk);
  }
  // Large tensors not split (more than 5% of rows with several outer contributors) whose rows hold a
  // chunk or more: the tile pass, alone not for replicate on 2-byte elements. Measured on the H200
  // against the one pass, rank5: reflect 0.80-0.91x the time, replicate f32 0.94x, f64 0.98x,
  // f16/bf16 1.12-1.16x; on the split sets image and audio the tile pass took 1.03-1.44x their
  // passes' time.
  //
  // Where the rows are whole chunks (no chunk crosses a row end) and some rows have several outer
  // contributors, the tile pass leaves those rows' chunks to the multi-row pass instead of queueing
  // them behind the single-row sums: on rank5 that queue took about half of the tile pass's time.
  // The pair against the tile pass (replicate f16/bf16: the one pass), 3 rounds on the H200: rank5
  // 0.69-0.78x the time on all 8 rows (with the multi-row pass of 256 rows per workgroup that
  // preceded the numbered one).
  const bool tile_shape = large && !p.split && n >= chunk;
  p.tile_multi = tile_shape && n % chunk == 0 && single_rows < 1;
  p.tile = tile_shape && !p.tile_multi && (g.mode == PadMode::Reflect || byte_width(dtype) >= 4);
  return p;
}

// An estimate, meant as an upper bound, of the loop iterations one invocation of
// pad_backward_det.comp runs (any pass) on the coalesced geometry: the element pass's terms over
// four; else iterations_per_chunk per chunk it writes (the tile pass: 2, the others 1). An edge
// invocation of pass 10 or 11 writes single-row chunks only, one per round of its block's rows'
// slots, 256 at a time; the multi-row pass beside it, one chunk of any row. Its constant 64 also
// covers the multi-row pass's numbering of its row (its loops over the axes: under 40 iterations
// at rank 8).
std::uint64_t loop_iterations_coalesced(const PadGeometry& g, DType dtype, bool always_split) {
  const DetPasses passes = det_passes(g, dtype, always_split);
  if (passes.element) {
    // The element pass: one loop over the element's combinations, four terms an iteration (its
    // odometer's loops over the axes are unrolled), at most 4^8 terms. Measured on lavapipe: rank-8
    // replicate sums of 65,536 terms (pads of 3 on every axis) ran whole in f32 and f16; the
    // estimate per chunk above had refused every such geometry from rank 5 up.
    std::uint64_t terms = 1;
    for (std::size_t a = 0; a < g.in.size(); ++a) terms *= max_contributors(g, a);
    return 64 + (terms + 3) / 4;
  }
  const std::uint64_t chunks_per_invocation = passes.tile || passes.tile_multi ? 2 : 1;
  const std::uint64_t any_chunk = chunks_per_invocation * (iterations_per_chunk(g, dtype) + 1);
  if (passes.interleave == 0) return any_chunk;
  const std::uint64_t chunk = 16 / byte_width(dtype);
  const std::uint64_t block_rows =
      passes.interleave * kCopyGroupChunks * chunk / static_cast<std::uint64_t>(g.in.back()) + 2;
  const std::uint64_t rounds = (block_rows * passes.slots + 255) / 256;
  return std::max(any_chunk, rounds * (iterations_per_chunk(g, dtype, true) + 1));
}

// Grad_in rows with several outer contributor combinations: all rows but those whose coordinate on
// every outer axis has one contributor.
std::uint64_t multi_rows(const PadGeometry& g) {
  std::uint64_t rows = 1, single_rows = 1;
  for (std::size_t a = 0; a + 1 < g.in.size(); ++a) {
    const auto n = static_cast<std::uint64_t>(g.in[a]);
    rows *= n;
    single_rows *= n - multi_coords(g, a);
  }
  return rows - single_rows;
}

// pad_backward_det.comp's multi-row pass (REGION 3): one invocation per chunk that can start in a
// row with several outer contributors. It writes chunks no other pass writes: no barrier around it.
// Built for the geometry wherever the other passes are (shape_constant.cpp). On the H200 against
// the workgroups of 256 rows that listed such rows in shared memory (rank5's cluster in planes next
// to an outer pad: up to 8.5 chunks per invocation there, one elsewhere):
// rank5 replicate f16/bf16 0.72-0.73x the time, reflect f16/bf16 0.95-0.97x, replicate f32 0.97x,
// reflect f32 1.08x, f64 1.12x, replicate f64 1.03x (numbering a row costs a few divisions per
// invocation); image 1.00-1.01x.
void record_multi_row_pass(rt::Stream& stream, const GeometryPipelines& pipeline,
                           std::span<const rt::BufferRange> bindings, const PadGeometry& g, DType dtype,
                           std::uint32_t rank) {
  const std::uint64_t chunk = 16 / byte_width(dtype);
  const std::uint64_t invocations = multi_rows(g) * ((static_cast<std::uint64_t>(g.in.back()) + chunk - 1) / chunk);
  if (invocations == 0) return;
  const PadPush multi{static_cast<std::uint32_t>(invocations), static_cast<std::uint32_t>(numel(g.in)), rank, 0, 0};
  stream.dispatch(pipeline(kMultiRowPass), bindings, bytes_of(multi), invocations);
}

}  // namespace

std::uint64_t det_backward_loop_iterations(const PadGeometry& g, DType dtype, bool always_split) {
  if (g.mode == PadMode::Constant || numel(g.in) == 0) return 0;
  return loop_iterations_coalesced(coalesce(g), dtype, always_split);
}

bool det_backward_takes_element_pass(const PadGeometry& g, DType dtype, bool always_split) {
  if (g.mode == PadMode::Constant || numel(g.in) == 0) return false;
  return det_passes(coalesce(g), dtype, always_split).element;
}

std::string pad_backward_kernel(const DeviceInfo& device, PadMode mode, DType dtype, BackwardAlgorithm algorithm) {
  if (mode == PadMode::Constant) return backward_const_kernel(device, dtype);
  return usable_build(device, fmt::format("pad_backward_{}{}_{}", mode == PadMode::Reflect ? "reflect" : "replicate",
                                          algorithm == BackwardAlgorithm::Deterministic ? "_det" : "", name(dtype)));
}

void check_pad_backward(const rt::Device& device, const PadGeometry& g, DType dtype, BackwardAlgorithm algorithm) {
  const auto kernel = pad_backward_kernel(device.info(), g.mode, dtype, algorithm);
  check_contract_dtype(kernel, dtype, "grad_out");
  check_contract_features(device, kernel);
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.out)) * byte_width(dtype), "grad_out");
  check_binding_size(device, static_cast<std::uint64_t>(numel(g.in)) * byte_width(dtype), "grad_in");
  const std::uint32_t loop_limit = device.info().max_loop_iterations;
  if (algorithm == BackwardAlgorithm::Deterministic && loop_limit > 0) {
    const std::uint64_t need = det_backward_loop_iterations(g, dtype, device.always_split_passes());
    if (need > loop_limit)
      fail(ErrorCode::DeviceLimit,
           fmt::format("grad_out {}: the deterministic {} backward may need {} loop iterations in one shader "
                       "invocation (for the length of its sums), and {} ends an invocation's loops after {}; "
                       "use BackwardAlgorithm::Atomic on this device, or narrower pads",
                       to_string(g.out), g.mode == PadMode::Reflect ? "reflect" : "replicate", need, device.info().name,
                       loop_limit));
  }
}

void record_pad_backward(rt::Stream& stream, const PadGeometry& geometry, DType dtype, const rt::Buffer& grad_out,
                         const rt::Buffer& grad_in, BackwardAlgorithm algorithm, std::string_view kernel,
                         SecondPhase* second) {
  if (second != nullptr) *second = nullptr;
  if (geometry.mode == PadMode::Constant) {
    record_backward_const(stream, geometry, dtype, grad_out, grad_in, kernel);
    return;
  }
  const PadGeometry g = coalesce(geometry);
  const std::uint64_t n_in = static_cast<std::uint64_t>(numel(g.in));
  const std::uint64_t n_out = static_cast<std::uint64_t>(numel(g.out));
  if (n_in == 0) return;
  const std::string kernel_name =
      kernel.empty() ? pad_backward_kernel(stream.device().info(), g.mode, dtype, algorithm) : std::string(kernel);
  // The deterministic kernel divides by grad_in's dims, the atomic one by grad_out's (divisors after
  // left_pad).
  const auto sb = with_divisors(shape_buf(g), algorithm == BackwardAlgorithm::Atomic ? g.out : g.in);
  const std::uint64_t width = byte_width(dtype);
  const std::array<rt::BufferRange, 3> bindings{rt::prefix(grad_out, n_out * width), rt::prefix(grad_in, n_in * width),
                                                stream.upload_small(std::as_bytes(std::span(sb)))};
  const auto rank = static_cast<std::uint32_t>(g.in.size());
  if (algorithm == BackwardAlgorithm::Atomic) {
    // The atomic adds go after a barrier that follows the first phase: recorded here, or handed to
    // the caller (a batch puts one barrier before the second phases of all its ops).
    auto then = [&](SecondPhase rest) {
      if (second != nullptr) {
        *second = std::move(rest);
        return;
      }
      stream.barrier();
      rest(stream);
    };
    // pad_backward_atomic.comp's passes (its REGION: one SPIR-V module each).
    constexpr std::uint32_t kEveryElement = 0, kInnerPads = 1, kOuterPadRows = 2, kOuterPadGroups = 3;
    const std::uint64_t row_out = static_cast<std::uint64_t>(g.out.back());
    const std::uint64_t rows = n_out / row_out;  // grad_out rows
    // Pass 1's invocations per row: reflect one per innermost pad element; replicate, where every
    // element of a side lands on one grad_in element, replicate_side_lanes per side.
    const std::uint64_t slots = g.mode == PadMode::Reflect
                                    ? static_cast<std::uint64_t>(g.left.back() + g.right.back())
                                    : replicate_side_lanes(static_cast<std::uint64_t>(g.left.back())) +
                                          replicate_side_lanes(static_cast<std::uint64_t>(g.right.back()));
    bool outer_pads = false;
    for (std::size_t a = 0; a + 1 < g.in.size(); ++a) outer_pads = outer_pads || g.left[a] + g.right[a] > 0;
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
    // grad_out of 1 MiB and more: every grad_in element's direct contributor (grad_out[c + left]) is
    // written by the crop, then only the grad_out elements in a pad are added, atomically (passes 1
    // and 2). On the H200 0.14-0.50x the time of one add per grad_out element onto zeros (image,
    // audio), 0.44-0.69x on rank5 (17% of grad_out in pads); on the small set 1.15-1.26x (three
    // dispatches instead of a fill and one), so small tensors keep that.
    const bool big = takes_large_passes(stream.device(), n_out * width);
    // Pass 2: a multiple of 32 invocations per row, each adding at most 256 of its elements.
    const std::uint64_t lanes = std::max<std::uint64_t>(1, (row_out + 256 * 32 - 1) / (256 * 32)) * 32;
    if (big && rows * lanes <= kMax && rows * slots <= kMax) {
      record_backward_const(stream, g, dtype, grad_out, grad_in);
      if (slots == 0 && !outer_pads) return;  // no pad: the crop is the whole op
      // The pipelines now, so that the adds, recorded perhaps later, do not create them.
      auto& device = stream.device();
      const rt::Kernel* inner_pads = slots > 0 ? &device.kernel(kernel_name, kInnerPads) : nullptr;
      const rt::Kernel* outer_rows =
          outer_pads ? &device.kernel(kernel_name, row_out <= 65536 ? kOuterPadGroups : kOuterPadRows) : nullptr;
      then([=](rt::Stream& st) {
        if (inner_pads != nullptr) {
          const PadPush edge{static_cast<std::uint32_t>(rows * slots), static_cast<std::uint32_t>(n_in), rank,
                             static_cast<std::uint32_t>(slots), static_cast<std::uint32_t>(rows)};
          st.dispatch(*inner_pads, bindings, bytes_of(edge), rows * slots);
        }
        if (outer_pads && row_out <= 65536) {
          // Rows of up to 65536 elements: G rows per workgroup, their rows with an outer pad listed
          // and shared by 256 invocations, none adding more than 256 elements (G * row <= 65536). On
          // the H200 against pass 2's 32 invocations per row: G = 32 took 0.84-0.96x the time on
          // image, 0.67-0.84x on rank5; G = 256 (rank5) 1.01-1.15x: the more rows a workgroup holds,
          // the longer each invocation's chain of dependent adds.
          const std::uint64_t group = std::min<std::uint64_t>(32, 65536 / row_out);
          const std::uint64_t invocations = grouped_invocations(rows, group);
          const PadPush outer{static_cast<std::uint32_t>(invocations), static_cast<std::uint32_t>(n_in), rank,
                              static_cast<std::uint32_t>(group), static_cast<std::uint32_t>(rows)};
          st.dispatch(*outer_rows, bindings, bytes_of(outer), invocations);
        } else if (outer_pads) {
          const PadPush outer{static_cast<std::uint32_t>(rows * lanes), static_cast<std::uint32_t>(n_in), rank,
                              static_cast<std::uint32_t>(lanes), 0};
          st.dispatch(*outer_rows, bindings, bytes_of(outer), rows * lanes);
        }
      });
      return;
    }
    // Pass 0 only accumulates: grad_in starts at +0.0 in every format.
    stream.fill(bindings[1], 0);  // grad_in's chunks only, not the rest of a larger storage
    const rt::Kernel* every = &stream.device().kernel(kernel_name, kEveryElement);
    then([=](rt::Stream& st) {
      const PadPush push{static_cast<std::uint32_t>(n_out), static_cast<std::uint32_t>(n_in), rank, 0, 0};
      st.dispatch(*every, bindings, bytes_of(push), n_out);
    });
  } else {
    const std::uint64_t chunk = 16 / width;
    const std::uint64_t chunks = (n_in + chunk - 1) / chunk;  // 16-byte chunks of grad_in
    const auto n = static_cast<std::uint64_t>(g.in.back());
    const DetPasses passes = det_passes(g, dtype, stream.device().always_split_passes());
    auto& device = stream.device();
    const PadPush push{static_cast<std::uint32_t>(chunks), static_cast<std::uint32_t>(n_in), rank, 0, 0};
    // Each pass's pipeline (the multi-row pass's: record_multi_row_pass).
    const GeometryPipelines pipeline(device, kernel_name, g, static_cast<std::uint32_t>(n_in), n_in * width);
    if (passes.element) {  // an invocation per element, in whole workgroups (2-byte builds: a barrier)
      const std::uint64_t invocations = grouped_invocations(n_in, 256);
      const PadPush elements{static_cast<std::uint32_t>(invocations), static_cast<std::uint32_t>(n_in), rank, 0, 0};
      stream.dispatch(pipeline(kElementPass), bindings, bytes_of(elements), invocations);
      return;
    }
    if (passes.row_pass) {  // 256 / R rows of R chunks per workgroup of 256 invocations
      const std::uint64_t rows_per_group = 256 / passes.row_chunks;
      const std::uint64_t invocations = grouped_invocations(n_in / n, rows_per_group);
      const PadPush rows{static_cast<std::uint32_t>(invocations), static_cast<std::uint32_t>(n_in), rank,
                         static_cast<std::uint32_t>(passes.row_chunks), 0};
      stream.dispatch(pipeline(kRowPass), bindings, bytes_of(rows), invocations);
      return;
    }
    if (passes.tile || passes.tile_multi) {  // two chunks per invocation (pass 7 on 4- and 8-byte elements: one)
      if (passes.tile_multi) record_multi_row_pass(stream, pipeline, bindings, g, dtype, rank);
      // A portable build has no subgroup queue: its tile pass queues in the workgroup (REGION 7).
      const bool subgroup_queue = passes.subgroup_queue && fast_build_of(kernel_name).empty();
      const std::uint32_t pass = !passes.tile_multi ? kTilePass
                                 : subgroup_queue   ? kTileSingleRowsSubgroups
                                                    : kTileSingleRows;
      const std::uint64_t invocations = grouped_invocations(chunks, 256 * tile_chunks_per_invocation(pass, dtype));
      const PadPush tile{static_cast<std::uint32_t>(invocations), static_cast<std::uint32_t>(n_in), rank, 0, 0};
      stream.dispatch(pipeline(pass), bindings, bytes_of(tile), invocations);
      return;
    }
    if (!passes.split) {
      stream.dispatch(pipeline(kOnePass), bindings, bytes_of(push), chunks);
      return;
    }
    if (passes.interleave > 0) {  // the multi-row pass first (its invocations are longer), no barrier
      if (passes.multi_row) record_multi_row_pass(stream, pipeline, bindings, g, dtype, rank);
      const std::uint64_t copy_groups = (chunks + kCopyGroupChunks - 1) / kCopyGroupChunks;
      const std::uint64_t blocks = (copy_groups + passes.interleave - 1) / passes.interleave;
      const std::uint64_t invocations = blocks * (passes.interleave + 1) * 256;
      const PadPush blocked{static_cast<std::uint32_t>(invocations), static_cast<std::uint32_t>(n_in), rank,
                            static_cast<std::uint32_t>(passes.slots), static_cast<std::uint32_t>(passes.interleave)};
      const std::uint32_t pass = passes.windows ? kInterleavedPass : kInterleavedMirrorsPass;
      stream.dispatch(pipeline(pass), bindings, bytes_of(blocked), invocations);
      return;
    }
    // The passes write disjoint chunks (no barrier between them). The edge and multi-row passes go
    // first, so that their few, longer invocations run alongside the copy pass, not after it.
    // Edge chunks: an invocation each, or a workgroup each (pass 9).
    const std::uint64_t edge_pass = n_in / n * passes.slots * (passes.workgroup_edges ? 256 : 1);
    const PadPush edges{static_cast<std::uint32_t>(edge_pass), static_cast<std::uint32_t>(n_in), rank,
                        static_cast<std::uint32_t>(passes.slots), 0};
    const std::uint32_t edge_kernel = passes.workgroup_edges ? kWorkgroupEdgePass
                                      : passes.long_runs     ? kLongEdgePass
                                                             : kEdgePass;
    stream.dispatch(pipeline(edge_kernel), bindings, bytes_of(edges), edge_pass);
    if (passes.multi_row) record_multi_row_pass(stream, pipeline, bindings, g, dtype, rank);
    // The copy pass: four chunks 32 apart per invocation (on the H200 against one: image
    // 0.94-0.99x the time, audio 0.99-1.03x).
    const std::uint64_t copy_pass = four_apart_invocations(chunks);
    const PadPush copies{static_cast<std::uint32_t>(copy_pass), static_cast<std::uint32_t>(n_in), rank, 0, 0};
    stream.dispatch(pipeline(kCopyPass), bindings, bytes_of(copies), copy_pass);
  }
}

}  // namespace fvk::ops

namespace fvk {

Tensor pad_backward(Context& ctx, const Tensor& grad_out, const PadSpec& spec, BackwardAlgorithm algorithm) {
  ctx.check_tensor(grad_out, "grad_out");
  const PadGeometry g = infer_pad_backward(grad_out.shape(), spec);
  ops::check_pad_backward(ctx.runtime(), g, grad_out.dtype(), algorithm);
  Tensor grad_in = ctx.empty(grad_out.dtype(), g.in);
  ops::run_timed(ctx, [&](rt::Stream& s) {
    ops::record_pad_backward(s, g, grad_out.dtype(), *grad_out.storage(), *grad_in.storage(), algorithm);
  });
  return grad_in;
}

}  // namespace fvk
