// pad.comp's pass choice (gather_plan.hpp), from the H200 measurements quoted at each rule.
#include "ops/gather_plan.hpp"

#include <limits>

#include "ops/launch.hpp"

namespace fvk::ops {
namespace {

// Rows of this many bytes and more take the inner pass (with the edge pass) or the tile pass with
// four chunks per invocation; shorter ones from 16 bytes the row pass or the tile pass with two.
constexpr std::uint64_t kLongRowBytes = 512;
// Rows under this many bytes with an innermost pad or a part chunk take the tile pass on large
// destinations, longer ones the inner and edge passes. Measured on the H200 against the inner and
// edge passes: image rows of 2072 and 4144 bytes (f32, i64) 0.87-0.88x and 0.95-0.96x the time;
// audio rows (480 KB and more) 1.00-1.11x. Rows of 4145 to 8191 bytes are not in the bench sets.
constexpr std::uint64_t kTileRowBytes = 8192;
// pad.comp's LONG_ROW_BYTES: from this row length the one pass takes four chunks 32 apart per
// invocation (widths over 1 byte).
constexpr std::uint64_t kOnePassFourRowBytes = 8192;

// The group pass's limits (pad.comp's PIECE_WORDS, GROUP_SRC in bytes and PAD_WG for the pass), and
// the group size from which a group takes two pieces.
constexpr std::uint64_t kPieceWords = 36, kGroupSourceBytes = 16 * 16, kGroupWorkgroup = 64;
constexpr std::uint64_t kTwoPieceWords = 10;

}  // namespace

GatherPlan plan_gather(const GatherShape& s) {
  const std::uint64_t chunk_elems = 16 / s.width;
  const std::uint64_t chunks_total = (s.n_dst + chunk_elems - 1) / chunk_elems;
  const std::uint64_t row_bytes = s.row * s.width;
  if (row_bytes < 16) return {GatherPass::One, chunks_total};
  // Rows of whole chunks without an innermost pad: every chunk is a plain copy (or fill).
  const bool whole_rows = s.left + s.right == 0 && row_bytes % 16 == 0;
  // Rows of 16 to 8191 bytes with edges, 1 MiB of destination and more: the tile pass, which writes a
  // workgroup's plain chunks first and queues the others, or for 8-byte elements writes them itself
  // (measured on the H200 against the row pass and the inner + edge passes: rank-5 0.59-0.63x the
  // time for 1- and 2-byte elements, 0.81-0.93x for 4, 0.71-0.74x for 8 (544-byte rows); image rows
  // 0.87-0.99x for 1 and 2 bytes, before the subgroup queue took them to 0.84-0.85x of that).
  // Chunks per invocation: four on rows of 512 bytes and more of 1- to 4-byte elements, two on
  // shorter rows (where four took 1.13-1.15x the time of two) and on 8-byte elements, whose
  // invocations write their own slow chunks (two against four: rank-5 rows of 544 bytes 0.94-0.97x
  // the time, image rows of 4144 bytes 0.96-0.98x; two on image rows of 1- to 4-byte elements took
  // 1.01-1.08x; docs/data/h200_ab_tile_chunks.md).
  // Rows of whole chunks from 512 to 8191 bytes (crops, or pads of outer axes only) take it too,
  // two chunks per invocation, every chunk plain (against the inner pass's four chunks 32 apart:
  // image crops u8 0.94x the time, f32 and i64 0.98x, f16 1.00x; rank-5 i64 crops, rows of 512
  // bytes, 0.97x; on shorter rows it was 1.00-1.03x the row pass's time, which keeps them).
  // Rows with innermost pads of at most 16 bytes each whose destination and source rows are both
  // whole chunks (so every row starts on a chunk in both, a chunk clear of the pads is the same
  // shift of an aligned 32-byte window everywhere, and a pad chunk's elements lie in the window at
  // its row's start or end): the aligned-row pass, one chunk per invocation, under the tile pass's
  // row limit on large destinations, where its pipeline is built for the geometry
  // (shape_constant.cpp). Measured on the H200 against the tile pass, both so built
  // (docs/data/h200_ab_shape_constants.md): rank-5 rows of 272 bytes (f32) 0.94-0.97x the time,
  // of 544 (i64) 0.97x for reflect and replicate, 1.01x for constant; image i64 rows (pads of 24
  // bytes) are not taken. Reading shape_buf it took 1.05-1.09x the tile pass's time on those rows
  // (docs/data/h200_ab_aligned_row.md).
  const std::uint64_t src_row_bytes = (s.row - s.left - s.right) * s.width;
  const bool narrow_pads = s.left * s.width <= 16 && s.right * s.width <= 16;
  if (s.big && s.aligned_rows && !whole_rows && narrow_pads && row_bytes % 16 == 0 && src_row_bytes % 16 == 0 &&
      row_bytes < kTileRowBytes) {
    return {GatherPass::AlignedRow, chunks_total};
  }
  // Rows of 1- and 2-byte elements with an innermost pad whose source rows are whole chunks, in
  // groups of P rows (the fewest that make whole 32-bit words), from at most kGroupSourceBytes of
  // source rows: the group pass, where its pipeline is built for the geometry. Groups of
  // kTwoPieceWords words and more take two invocations, one piece of ceil(words / 2) words apiece,
  // smaller ones one; a piece holds at most kPieceWords words. Each workgroup of kGroupWorkgroup
  // stages its groups' words (pad.comp's STAGE_WORDS). Measured on the H200, all built for the
  // geometry (docs/data/h200_ab_group_words.md): against the pass's first form (groups of whole
  // 8-byte units, one invocation each; 0.79-0.82x the tile pass's time on rank-5 u8,
  // h200_ab_group_pass.md), groups of whole words in one piece took rank-5 rows of 68 u8 0.80-0.83x
  // the time and f16/bf16 0.91-0.94x (f16 in two pieces of 17 words; one piece of 34 took
  // 1.01-1.05x), rows of 38 from 32 u8 0.46-0.53x (the first form's wide build) and f16/bf16
  // 0.72-0.74x (the tile pass); two pieces from 10 words, instead of only for even counts over 18,
  // then took rank-5 u8 0.92-0.95x, rows of 38 0.90-0.95x, rank-5 f16/bf16 0.99-1.01x (the same
  // code), and rows of 17 u8 0.98-1.05x (f16 0.93-1.00x). Four pieces took rank-5 f16/bf16
  // 1.04-1.06x.
  if (s.big && s.group_rows && s.width <= 2 && s.left + s.right > 0 && src_row_bytes % 16 == 0) {
    const std::uint64_t p = row_bytes % 4 == 0 ? 1 : row_bytes % 2 == 0 ? 2 : 4;
    const std::uint64_t words = p * row_bytes / 4;
    const std::uint64_t pieces = words >= kTwoPieceWords ? 2 : 1;
    if (p * src_row_bytes <= kGroupSourceBytes && (words + pieces - 1) / pieces <= kPieceWords) {
      const std::uint64_t groups = (s.n_dst / s.row + p - 1) / p;
      return {GatherPass::Group, groups * pieces, 0, 0, pieces, kGroupWorkgroup / pieces * words};
    }
  }
  const bool tile_rows = !whole_rows || row_bytes >= kLongRowBytes;
  if (s.big && tile_rows && row_bytes < kTileRowBytes) {
    const bool four = !whole_rows && row_bytes >= kLongRowBytes && s.width < 8;
    return {four ? GatherPass::TileFour : GatherPass::Tile, grouped_invocations(chunks_total, four ? 1024 : 512)};
  }
  // Rows of 16 to 511 bytes with an innermost pad in destinations under 1 MiB, elements of 1 to 4
  // bytes: the word pass, one invocation per 32-bit word of the destination. These are latency-
  // bound, and the row pass's slow chunks load their elements one after another. Measured on the
  // H100 against the row pass (small set, docs/data/h100_ab_word_pass.md): u8 0.70-0.71x the time,
  // f16/bf16 0.75-0.80x, f32 0.91-0.95x. 8-byte elements (a word is half an element) keep the row
  // pass: the word pass took them 0.94-0.98x the time alone, but 1.39-1.44x recorded 100 at a time.
  if (!s.big && s.width <= 4 && s.left + s.right > 0 && row_bytes < kLongRowBytes) {
    return {GatherPass::Word, (s.n_dst * s.width + 3) / 4};
  }
  // Other rows of 16 to 511 bytes (whole chunks without pads, or under 1 MiB): the row pass, which walks
  // the outer coordinates once per row (measured on the H200 against the inner and edge passes:
  // 0.73-0.99x the time on the small set, 0.83-0.95x on rank-5 crops and 1-byte pads, 0.95-1.06x
  // on the other rank-5 pads).
  if (row_bytes < kLongRowBytes) {
    // Two chunks per invocation from 1 MiB (rank-5 0.91-1.00x the time of one), else one (small
    // set: one is 0.78-0.93x the time of two).
    return {s.big ? GatherPass::RowTwo : GatherPass::Row, grouped_invocations(chunks_total, s.big ? 512 : 256)};
  }
  // Rows of 512 bytes and more. The inner pass: four chunks 32 apart per invocation (the kernel's
  // grouping of 128 chunks).
  const std::uint64_t four_per_invocation = four_apart_invocations(chunks_total);
  // Rows of whole chunks and no pad (8192 bytes and more, or under 1 MiB of destination): every chunk
  // is an inner chunk, and the inner pass does them all.
  if (whole_rows) {
    return {GatherPass::Inner, four_per_invocation};
  }
  // Edge pass: `slots` invocations per row boundary for the edge chunks, where the destination has
  // 1 MiB and more (below, a second dispatch costs more latency than the lean pass saves).
  const std::uint64_t slots = (s.left + s.right) / chunk_elems + 2;
  const std::uint64_t edge = (s.n_dst / s.row + 1) * slots;
  if (s.big && edge <= std::numeric_limits<std::uint32_t>::max()) {  // the kernel's index is 32-bit
    return {GatherPass::Inner, four_per_invocation, edge, slots};
  }
  // The one pass: one chunk per invocation, or four 32 apart on rows of 8 KiB and more (not for
  // 1-byte elements, where one per invocation measured faster).
  return {GatherPass::One, row_bytes >= kOnePassFourRowBytes && s.width > 1 ? four_per_invocation : chunks_total};
}

GatherShape gather_shape(const PadGeometry& g, std::uint64_t width, bool crop) {
  GatherShape s;
  s.n_dst = static_cast<std::uint64_t>(numel(crop ? g.in : g.out));
  s.width = width;
  s.row = static_cast<std::uint64_t>(crop ? g.in.back() : g.out.back());
  s.left = crop ? 0 : static_cast<std::uint64_t>(g.left.back());
  s.right = crop ? 0 : static_cast<std::uint64_t>(g.right.back());
  return s;
}

}  // namespace fvk::ops
