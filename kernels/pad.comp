#version 450
// Index-map gather for the pad family, one source for every mode and byte width:
//   MODE 0 constant  (out = pad(in), pad slots get the fill bits)
//   MODE 1 reflect   (out = pad(in), mirror about the edge element, edge not repeated)
//   MODE 2 replicate (out = pad(in), clamp to the edge element)
//   MODE 3 crop      (grad_in = grad_out[in_coord + left]: the constant-pad backward)
// shape_buf = [in_shape, out_shape, left_pad, dst_div_multiplier, dst_div_shifts], `rank` entries
// each. The wrapper guarantees the pad preconditions (out = in + l + r, reflect pads <= dim - 1, no
// empty dim where data is needed). Each invocation writes whole 16-byte chunks of the destination
// (CHUNK_ELEMS consecutive elements; the tile pass's queued chunks and the word pass: 32-bit words),
// walking coordinates incrementally so the per-element cost is a compare and an add; the passes are
// described above main().
#include "common.glsl"
// PORTABLE builds (the *_portable_* kernels) use no subgroup operation: the tile passes queue their
// chunks that are not plain in the workgroup's queue only.
#ifndef PORTABLE
#define PORTABLE 0
#endif
#if !PORTABLE
#include "ballot.glsl"
#endif

// Invocations per workgroup, which is also how far apart the row and tile passes' chunks of one
// invocation lie (ROW_CHUNKS). 128 for 2-byte elements, 256 for the others; measured on the H200
// against 256 (docs/data/h200_ab_workgroup_size.md): 128 took rank-5 rows of 2-byte elements
// 0.97-0.98x the time, image rows 1.00x and image crops 0.98x, but rank-5 rows of 1-byte elements
// 1.01-1.03x; 64 was slower on rank-5 forward rows of 1 to 4 bytes (1.04-1.17x).
#ifndef PAD_WG
#if FVK_PASS == 8
// The group pass (its stage, below, holds the workgroup's groups). Measured on the H200 against 128
// and 256 (docs/data/h200_ab_group_words.md, run 5): 128 took rank-5 rows 0.99-1.05x the time, 256
// 1.00-1.13x (and with 256, groups of 36 words would need a 36 KiB stage, over lavapipe's 32 KiB of
// shared memory).
#define PAD_WG 64
#elif ELEM_BYTES == 2
#define PAD_WG 128
#else
#define PAD_WG 256
#endif
#endif
layout(local_size_x = PAD_WG) in;

#if ELEM_BYTES == 8
layout(set = 0, binding = 0, std430) readonly buffer Src { uvec2 src[]; };
#else
layout(set = 0, binding = 0, std430) readonly buffer Src { uint src[]; };
#endif
// The same source seen as 16-byte chunks, for the fast path.
layout(set = 0, binding = 0, std430) readonly buffer Src4 { uvec4 src4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };
// The same destination seen as 32-bit words, for the tile pass's queued chunks and the word pass
// (each word is written by one invocation).
layout(set = 0, binding = 1, std430) writeonly buffer DstW { uint dst_w[]; };
#include "window.glsl"
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

layout(push_constant) uniform Params {
  uint n_chunks;  // invocations of the main pass (see main)
  uint n_dst;     // elements of the destination
  uint rank;
  uint fill_lo;   // fill bit pattern (low word; MODE 0 only)
  uint fill_hi;   // high word for 8-byte elements
  uint n_edge;    // invocations of the edge pass, (rows + 1) * slots; 0 when there is none
  uint slots;     // edge invocations per row boundary
} pc;
// The pass (the passes are described above main()): the build compiles one SPIR-V module per pass
// with FVK_PASS set (kernels/CMakeLists.txt), so each module holds its own pass's code only.
#ifndef FVK_PASS
#error "FVK_PASS (the pass) must be defined"
#endif
const uint REGION = FVK_PASS;
// The rank: specialization constant 1, which the wrapper sets where a pass is compiled for it (one
// pipeline per pass and rank), so the loops over the axes unroll to the axes there are and
// shape_buf's offsets are constants; 0 (the default) where the pass reads the push constant. The
// wrapper decides, in src/ops/rank_constant.cpp (with the measurements behind it); the kernel
// trusts it.
layout(constant_id = 1) const uint RANK_SC = 0u;
const bool RANK_KNOWN = RANK_SC != 0u;
#define RANK (RANK_KNOWN ? RANK_SC : pc.rank)

// The geometry, from the shape constants where the pipeline was built for one (the wrapper then sets
// the rank too), else from shape_buf and the push constants.
#include "shape_constants.glsl"
#define N_DST (SHAPE_KNOWN ? N_DST_SC : pc.n_dst)

#if MODE == 3
uint dst_dim(uint a) { return in_dim(a); }
uint src_dim(uint a) { return out_dim(a); }
#else
uint dst_dim(uint a) { return out_dim(a); }
uint src_dim(uint a) { return in_dim(a); }
#endif

// n / dst_dim(a): a division by a constant where the geometry is one (the driver picks its
// multiply-high), else by multiply-high and shifts (Granlund-Montgomery, exact for every 32-bit n)
// from the multiplier and two shifts the wrapper stores for each destination dim after left_pad.
uint div_dst(uint n, uint a) {
  if (SHAPE_KNOWN) return n / dst_dim(a);
  const uint m = shape_buf[3u * RANK + a];
  const uint sh = shape_buf[4u * RANK + a];
  uint hi, lo;
  umulExtended(n, m, hi, lo);
  return (hi + ((n - hi) >> (sh & 0xFFu))) >> (sh >> 8);
}

// Source coordinate for destination coordinate c on axis a; false when it falls in a constant pad.
bool map_coord(uint a, uint c, out uint s) {
#if MODE == 3
  s = c + left_pad(a);
  return true;
#else
  const int n = int(in_dim(a));
  int i = int(c) - int(left_pad(a));
#if MODE == 0
  s = uint(i);
  return i >= 0 && i < n;
#elif MODE == 1
  i = i < 0 ? -i : i;
  i = i >= n ? 2 * (n - 1) - i : i;
  s = uint(i);
  return true;
#else
  s = uint(clamp(i, 0, n - 1));
  return true;
#endif
#endif
}

ELEM load_elem(uint idx) {
#if ELEM_BYTES == 1
  return (src[idx >> 2] >> ((idx & 3u) * 8u)) & 0xFFu;
#elif ELEM_BYTES == 2
  return (src[idx >> 1] >> ((idx & 1u) * 16u)) & 0xFFFFu;
#else
  return src[idx];
#endif
}

// Moves the walk to the next row: increments the outer coordinates and remaps them.
void next_row(inout uint coord[7], out uint outer_off, out bool outer_ok, uint inner, uint row_src) {
  outer_off = 0u;
  outer_ok = true;
  bool carry = true;
  uint stride = row_src;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    if (uint(a) < inner) {
      if (carry) {
        coord[a] += 1u;
        carry = coord[a] == dst_dim(uint(a));
        if (carry) coord[a] = 0u;
      }
      uint sa;
      outer_ok = map_coord(uint(a), coord[a], sa) && outer_ok;
      outer_off += sa * stride;
      stride *= src_dim(uint(a));
    }
  }
}

#if ELEM_BYTES <= 2
// 4 bytes of the source starting at byte `b0` (one or two word loads and a funnel shift); all four
// bytes are data.
uint load4(uint b0) {
  const uint w = b0 >> 2;
  const uint sh = (b0 & 3u) * 8u;
  const uint lo = src[w];
  if (sh == 0u) return lo;
  return (lo >> sh) | (src[w + 1u] << (32u - sh));
}
#endif

// Where the walk stands at destination chunk `chunk`: c along the innermost axis, coord[] on the
// outer axes, and the outer axes' source offset and validity.
void locate(uint chunk, uint inner, uint row_dst, uint row_src, out uint c, out uint coord[7], out uint outer_off,
            out bool outer_ok) {
  const uint first = chunk * uint(CHUNK_ELEMS);
  uint rem = div_dst(first, inner);
  c = first - rem * row_dst;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    coord[a] = 0u;
    if (uint(a) < inner) {
      const uint d = dst_dim(uint(a));
      const uint q = div_dst(rem, uint(a));
      coord[a] = rem - q * d;
      rem = q;
    }
  }
  outer_off = 0u;
  outer_ok = true;
  uint stride = row_src;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    if (uint(a) < inner) {
      uint s;
      outer_ok = map_coord(uint(a), coord[a], s) && outer_ok;
      outer_off += s * stride;
      stride *= src_dim(uint(a));
    }
  }
}

// Writes destination chunk `chunk`, whose first element stands where locate() says (arguments are
// copies: the walk of the caller is not moved).
void write_chunk(uint chunk, uint inner, uint row_dst, uint row_src, uint c, uint coord[7], uint outer_off,
                 bool outer_ok) {
  const uint first = chunk * uint(CHUNK_ELEMS);
  // Fast path: the chunk lies in one row and maps to consecutive source elements (the interior of
  // a pad, any chunk of a crop): one or two 16-byte loads and a funnel shift.
  if (outer_ok && c + uint(CHUNK_ELEMS) <= row_dst) {
#if MODE == 3
    const bool inside = true;
    const uint i0 = c + left_pad(inner);
#else
    const int i = int(c) - int(left_pad(inner));
    const bool inside = i >= 0 && uint(i) + uint(CHUNK_ELEMS) <= row_src;
    const uint i0 = uint(i);
#endif
    if (inside) {
      dst[chunk] = load16((outer_off + i0) * uint(ELEM_BYTES));
      return;
    }
  }

  // Slow path (the chunk touches a pad or a row end): word by word, so only the words that do are
  // taken element by element, and a warp with a few such chunks does not pay 16 element loads.
  uvec4 out_chunk = uvec4(0u);
  uint e = first;
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
#if ELEM_BYTES <= 2
    const uint EPW = 4u / uint(ELEM_BYTES);  // elements per word
#if MODE == 3
    const bool word_inside = true;
    const uint wi0 = c + left_pad(inner);
#else
    const int wi = int(c) - int(left_pad(inner));
    const bool word_inside = wi >= 0 && uint(wi) + EPW <= row_src;
    const uint wi0 = uint(wi);
#endif
    if (outer_ok && c + EPW < row_dst && word_inside && e + EPW <= N_DST) {
      out_chunk[w] = load4((outer_off + wi0) * uint(ELEM_BYTES));
      c += EPW;
      e += EPW;
      continue;
    }
    const uint per_word = EPW;
#else
    const uint per_word = 1u;
    if (w >= uint(CHUNK_ELEMS)) break;
#endif
    [[unroll]] for (uint j = 0u; j < per_word; ++j) {
      const uint k = w * per_word + j;  // element index in the chunk
      if (e < N_DST) {
        uint s;
        const bool ok = map_coord(inner, c, s) && outer_ok;
#if MODE == 0
        // A branch, not a select: a pad slot's source index is out of range and must never be read.
#if ELEM_BYTES == 8
        ELEM v = uvec2(pc.fill_lo, pc.fill_hi);
#else
        ELEM v = pc.fill_lo;
#endif
        if (ok) v = load_elem(outer_off + s);
#else
        const ELEM v = load_elem(outer_off + s);
#endif
        put_elem(out_chunk, k, v);
        ++e;
        // Step to the next element; on a row end, carry into the outer axes and remap them.
        if (++c == row_dst) {
          c = 0u;
          next_row(coord, outer_off, outer_ok, inner, row_src);
        }
      }
    }
  }
  dst[chunk] = out_chunk;
}

// Passes. The build compiles one module per pass (REGION = FVK_PASS) and the wrapper runs each as
// its own pipeline (each holds its own path only, so the lean ones keep many warps in flight):
//  0: one pass writes every chunk (rows under 16 bytes; rows of 512 bytes and more with an innermost
//     pad or a part chunk in destinations under 1 MiB);
//  1, 4: the row pass (row_pass, below), rows of 16 to 511 bytes in destinations under 1 MiB, and
//     such rows of whole chunks without an innermost pad;
//  5, 6: the tile pass (tile_pass, below), in destinations of 1 MiB and more: rows of 16 to 8191
//     bytes with an innermost pad or a part chunk (6 on rows of 512 bytes and more of 1- to 4-byte
//     elements), and rows of whole chunks from 512 to 8191 bytes (5; every chunk plain);
//  3: on rows of 512 bytes and more, the inner chunks only, those inside one row and clear of its
//     pads: a copy of 16 source bytes (or the fill), four chunks per invocation (inner_four);
//  2: the edge chunks (a pad slot or a row end inside), enumerated per row boundary: `slots`
//     invocations for the few chunks around each boundary, writing exactly those pass 3 leaves;
//  7, 8: where their pipelines are built for the geometry, in destinations of 1 MiB and more, in
//     place of the tile pass: the aligned-row pass (aligned_row_chunk, below: rows of whole chunks
//     with pads of at most 16 bytes) and the group pass (group_pass, below: groups of whole rows of
//     1- and 2-byte elements from source rows of whole chunks);
//  9: the word pass (word_pass, below), in destinations under 1 MiB whose rows of 16 to 511 bytes
//     have an innermost pad, 1- to 4-byte elements: one invocation per 32-bit word.
// The inner and edge passes write disjoint chunks: no barrier between them; they take the rows of
// 8192 bytes and more. Where rows are whole chunks without pads, there are no edge chunks and the
// inner pass alone writes everything (from 8192 bytes; from 512 on destinations under 1 MiB).
// In the one pass, rows of LONG_ROW_BYTES and more: each invocation takes 4 chunks, 32 chunks apart
// (every store of a warp is one contiguous run). Shorter rows: one chunk per invocation, where more
// parallelism pays more than saved index math (measured on the H200). The wrapper sizes the passes
// by the same rules.
// (REGION is declared above with the rank.)
#define LONG_ROW_BYTES 8192u  // the wrapper's kOnePassFourRowBytes (src/ops/gather_plan.cpp)

// Pads of the innermost axis in destination elements (a crop has none).
uint inner_left(uint inner) {
#if MODE == 3
  return 0u;
#else
  return left_pad(inner);
#endif
}
uint inner_right(uint inner) {
#if MODE == 3
  return 0u;
#else
  return out_dim(inner) - in_dim(inner) - left_pad(inner);
#endif
}
// Whether the chunk starting at column c reaches into a pad or past the row end.
bool is_edge(uint c, uint row_dst, uint pl, uint pr) { return c < pl || c + uint(CHUNK_ELEMS) > row_dst - pr; }
// Column of destination element e.
uint column(uint e, uint inner, uint row_dst) { return e - div_dst(e, inner) * row_dst; }

// An inner chunk (inside one row, clear of its pads): 16 consecutive source bytes, or the fill when
// the whole row lies in a constant pad of an outer axis.
// A chunk of fill elements (constant mode).
uvec4 fill_chunk() {
#if ELEM_BYTES == 1
  return uvec4((pc.fill_lo & 0xFFu) * 0x01010101u);
#elif ELEM_BYTES == 2
  return uvec4((pc.fill_lo & 0xFFFFu) * 0x00010001u);
#elif ELEM_BYTES == 4
  return uvec4(pc.fill_lo);
#else
  return uvec4(pc.fill_lo, pc.fill_hi, pc.fill_lo, pc.fill_hi);
#endif
}

uvec4 inner_value(uint inner, uint c, uint outer_off, bool outer_ok) {
#if MODE == 0
  if (!outer_ok) return fill_chunk();
#endif
#if MODE == 3
  const uint i0 = c + left_pad(inner);
#else
  const uint i0 = c - left_pad(inner);
#endif
  return load16((outer_off + i0) * uint(ELEM_BYTES));
}

// The inner pass on rows of 512 bytes and more (the wrapper runs it only there): four chunks per
// invocation, 32 apart (each store of a warp is one contiguous 512-byte run; a step crosses at most
// one row end), all four loads issued before the first store.
void inner_four(uint g, uint total, uint inner, uint row_dst, uint row_src, uint pl, uint pr) {
  const uint q = (g / 32u) * 128u + (g % 32u);
  if (q >= total) return;
  uint c, outer_off;
  uint coord[7];
  bool outer_ok;
  locate(q, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
  uvec4 v[4];
  bool w[4];
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    if (k > 0u) {
      c += 32u * uint(CHUNK_ELEMS);
      if (c >= row_dst) {
        c -= row_dst;
        next_row(coord, outer_off, outer_ok, inner, row_src);
      }
    }
    w[k] = q + 32u * k < total && !is_edge(c, row_dst, pl, pr);
    v[k] = uvec4(0u);
    if (w[k]) v[k] = inner_value(inner, c, outer_off, outer_ok);
  }
  [[unroll]] for (uint k = 0u; k < 4u; ++k)
    if (w[k]) dst[q + 32u * k] = v[k];
}

// The row pass (REGION 1 and 4), for rows of 16 to 511 bytes: each workgroup writes
// ROW_PER_INV * ROW_CHUNKS consecutive destination chunks. Its
// invocations first find the source row of every destination row those chunks touch (one walk of
// the outer coordinates per row, not per chunk), then each writes its chunks, ROW_CHUNKS apart: one
// or two 16-byte loads where a chunk lies inside a row's data, else word by word, and element by
// element at pads and row ends. REGION 4 takes two chunks per invocation (for large destinations),
// REGION 1 one (for small ones, where more invocations finish sooner).
#define ROW_CHUNKS uint(PAD_WG)  // the workgroup size
#define ROW_PER_INV (REGION == 4u ? 2u : 1u)
#define NO_ROW 0xFFFFFFFFu
// Byte offset in the source of each touched row's first element (a crop: the first one it keeps);
// NO_ROW where the row lies in a constant pad of an outer axis. A binding holds at most 2^32 - 1
// bytes, so no row starts at NO_ROW. Its size: the rows a workgroup's chunks can touch, at most
// (P * ROW_CHUNKS * 16 - 1) / 16 + 2 for 16-byte rows and P chunks per invocation. It is sized per
// pass, so that the passes without a row table declare no shared memory (declared shared memory
// costs a pipeline whether its pass uses it or not: 8 KiB of it made the inner pass 1.1-1.2x slower
// on the H200 when all passes shared one module).
const uint ROW_SLOTS = (REGION == 1u)                  ? ROW_CHUNKS + 2u
                       : (REGION == 4u || REGION == 5u) ? 2u * ROW_CHUNKS + 2u
                       : (REGION == 6u)                 ? 4u * ROW_CHUNKS + 2u
                                                        : 1u;
shared uint row_start[ROW_SLOTS];

// The source offset (in elements) of destination row r, and whether it has one (constant mode).
bool row_source(uint r, uint inner, uint row_src, out uint outer_off) {
  outer_off = 0u;
  bool ok = true;
  uint stride = row_src;
  uint rem = r;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    if (uint(a) < inner) {
      const uint q = div_dst(rem, uint(a));
      uint s;
      ok = map_coord(uint(a), rem - q * dst_dim(uint(a)), s) && ok;
      outer_off += s * stride;
      stride *= src_dim(uint(a));
      rem = q;
    }
  }
  return ok;
}

// Whether the chunk of destination element e (column c of a row whose source starts at byte b) is
// plain: inside one row and either 16 consecutive source bytes (v: one or two 16-byte loads) or, in a
// row wholly inside a constant pad of an outer axis or wholly inside an innermost constant pad, all
// fill.
bool plain_chunk(uint e, uint c, uint b, uint inner, uint row_dst, uint row_src, out uvec4 v) {
  const uint E = uint(CHUNK_ELEMS);
  v = uvec4(0u);
  if (e + E > N_DST || c + E > row_dst) return false;
#if MODE == 3
  v = load16(b + c * uint(ELEM_BYTES));
  return true;
#else
#if MODE == 0
  if (b == NO_ROW) {
    v = fill_chunk();
    return true;
  }
#endif
  const int i = int(c) - int(left_pad(inner));
#if MODE == 0
  // Wholly in an innermost pad: all fill (on rank-5 i64 rows with pads of 2, every chunk that is not
  // a copy).
  if (i + int(E) <= 0 || i >= int(row_src)) {
    v = fill_chunk();
    return true;
  }
#endif
  if (i < 0 || uint(i) + E > row_src) return false;
  v = load16(b + uint(i) * uint(ELEM_BYTES));
  return true;
#endif
}

// Writes chunk q from the row table (rows r0 .. r0 + rows - 1): word by word, one or two word loads
// where a word lies inside a row's data, element by element at pads and row ends.
void slow_chunk(uint q, uint r0, uint rows, uint inner, uint row_dst, uint row_src) {
  const uint E = uint(CHUNK_ELEMS);
  uint e = q * E;
  uint k = div_dst(e, inner) - r0;
  uint c = e - (r0 + k) * row_dst;
  uint b = row_start[k];
  uvec4 out_chunk = uvec4(0u);
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
#if ELEM_BYTES <= 2
    const uint EPW = 4u / uint(ELEM_BYTES);  // elements per word
#if MODE == 3
    const bool word_inside = c + EPW <= row_dst;
    const uint wi0 = c;
#else
    const int wi = int(c) - int(left_pad(inner));
    const bool word_inside = wi >= 0 && uint(wi) + EPW <= row_src;
    const uint wi0 = uint(wi);
#endif
    if (b != NO_ROW && word_inside && e + EPW <= N_DST) {
      out_chunk[w] = load4(b + wi0 * uint(ELEM_BYTES));
      e += EPW;
      c += EPW;
      if (c == row_dst) {
        c = 0u;
        if (++k < rows) b = row_start[k];
      }
      continue;
    }
    const uint per_word = EPW;
#else
    const uint per_word = 1u;
    if (w >= uint(CHUNK_ELEMS)) break;
#endif
    [[unroll]] for (uint j = 0u; j < per_word; ++j) {
      if (e < N_DST) {
        uint s;
#if MODE == 3
        s = c;
        const bool ok = true;
#else
        const bool ok = map_coord(inner, c, s) && b != NO_ROW;
#endif
#if MODE == 0
        // A branch, not a select: a pad slot's source index is out of range and must never be read.
#if ELEM_BYTES == 8
        ELEM v = uvec2(pc.fill_lo, pc.fill_hi);
#else
        ELEM v = pc.fill_lo;
#endif
        if (ok) v = load_elem(b / uint(ELEM_BYTES) + s);
#else
        const ELEM v = load_elem(b / uint(ELEM_BYTES) + s);
#endif
        put_elem(out_chunk, w * per_word + j, v);
        ++e;
        if (++c == row_dst) {
          c = 0u;
          if (++k < rows) b = row_start[k];
        }
      }
    }
  }
  dst[q] = out_chunk;
}

// Fills row_start for the rows that the workgroup's chunks first .. first + n_chunks - 1 touch.
void row_table(uint first, uint n_chunks, uint inner, uint row_src, out uint r0, out uint rows) {
  const uint E = uint(CHUNK_ELEMS);
  const uint e_begin = first * E;
  const uint e_end = e_begin + min(n_chunks * E, N_DST - e_begin);
  r0 = div_dst(e_begin, inner);
  rows = min(div_dst(e_end - 1u, inner) - r0 + 1u, ROW_SLOTS);
#if MODE == 3
  const uint s_lo = left_pad(inner);  // a crop keeps the middle of each source row
#else
  const uint s_lo = 0u;
#endif
  for (uint k = gl_LocalInvocationID.x; k < rows; k += ROW_CHUNKS) {
    uint off;
    row_start[k] = row_source(r0 + k, inner, row_src, off) ? (off + s_lo) * uint(ELEM_BYTES) : NO_ROW;
  }
}

// Row k of the table and column c of destination element e.
void table_row(uint e, uint r0, uint inner, uint row_dst, out uint k, out uint c) {
  k = div_dst(e, inner) - r0;
  c = e - (r0 + k) * row_dst;
}

void row_pass(uint g, uint total, uint inner, uint row_dst, uint row_src) {
  const uint lid = gl_LocalInvocationID.x;
  const uint first = (g - lid) * ROW_PER_INV;  // the workgroup's first chunk
  if (first >= total) return;  // the whole workgroup: past the destination
  uint r0, rows;
  row_table(first, ROW_CHUNKS * ROW_PER_INV, inner, row_src, r0, rows);
  barrier();
  [[unroll]] for (uint h = 0u; h < ROW_PER_INV; ++h) {
    const uint q = first + lid + h * ROW_CHUNKS;
    if (q >= total) continue;
    uint k, c;
    table_row(q * uint(CHUNK_ELEMS), r0, inner, row_dst, k, c);
    uvec4 v;
    if (plain_chunk(q * uint(CHUNK_ELEMS), c, row_start[k], inner, row_dst, row_src, v))
      dst[q] = v;
    else
      slow_chunk(q, r0, rows, inner, row_dst, row_src);
  }
}

// Word w (0 to 3) of chunk q from the row table, as slow_chunk writes it: the tile pass spreads each
// slow chunk over four invocations, one 32-bit word apiece, so that the element loads of one chunk
// run side by side and not one after another. First word_sources finds the source element of each
// element in the word, then word_value loads them and puts the word together; the tile pass does
// both for two words before it stores either, so that their loads are in flight together.
#if ELEM_BYTES == 8
#define WORD_ELEMS 1u  // a word is the low (w even) or high half of one element
#else
#define WORD_ELEMS (4u / uint(ELEM_BYTES))
#endif

// The word's source elements; bit j of `fills` marks element j a constant pad slot (the fill), of
// `pasts` past the destination's last element (zero bits). Neither is read.
struct WordSources {
  uint at[WORD_ELEMS];
  uint fills, pasts;
};

// No word: every element past the end, nothing read.
WordSources no_word() {
  WordSources ws;
  [[unroll]] for (uint j = 0u; j < WORD_ELEMS; ++j) ws.at[j] = 0u;
  ws.fills = 0u;
  ws.pasts = (1u << WORD_ELEMS) - 1u;
  return ws;
}

WordSources word_sources(uint q, uint w, uint r0, uint rows, uint inner, uint row_dst, uint row_src) {
  WordSources ws = no_word();
#if ELEM_BYTES == 8
  uint e = q * 2u + (w >> 1);
#else
  uint e = q * uint(CHUNK_ELEMS) + w * WORD_ELEMS;
#endif
  if (e >= N_DST) return ws;
  uint k, c;
  table_row(e, r0, inner, row_dst, k, c);
  uint b = row_start[k];
  [[unroll]] for (uint j = 0u; j < WORD_ELEMS; ++j) {
    if (e < N_DST) {
      uint s;
#if MODE == 3
      s = c;
      const bool ok = true;
#else
      const bool ok = map_coord(inner, c, s) && b != NO_ROW;
#endif
      ws.at[j] = b / uint(ELEM_BYTES) + s;
      ws.pasts &= ~(1u << j);
      if (!ok) ws.fills |= 1u << j;
      ++e;
      if (++c == row_dst) {
        c = 0u;
        if (++k < rows) b = row_start[k];
      }
    }
  }
  return ws;
}

uint word_value(uint w, WordSources ws) {
  ELEM v[WORD_ELEMS];
  // The loads first, all of them.
  [[unroll]] for (uint j = 0u; j < WORD_ELEMS; ++j) {
    v[j] = ELEM(0u);
    if ((((ws.fills | ws.pasts) >> j) & 1u) == 0u) v[j] = load_elem(ws.at[j]);
  }
  uint word = 0u;
  [[unroll]] for (uint j = 0u; j < WORD_ELEMS; ++j) {
    const bool fill = ((ws.fills >> j) & 1u) != 0u;
#if ELEM_BYTES == 8
    const uvec2 x = fill ? uvec2(pc.fill_lo, pc.fill_hi) : v[j];
    word = (w & 1u) == 0u ? x.x : x.y;
#else
    const uint x = fill ? pc.fill_lo : v[j];
#if ELEM_BYTES == 4
    word = x;
#else
    word |= (x & ((1u << (8u * uint(ELEM_BYTES))) - 1u)) << (j * 8u * uint(ELEM_BYTES));
#endif
#endif
  }
  return word;
}

// The word pass (REGION 9), for destinations under 1 MiB whose rows of 16 to 511 bytes have an
// innermost pad: one invocation per 32-bit word of the destination (for 8-byte elements, per half
// element), with no row table and no barrier. Such tensors are latency-bound: the row pass's time is
// its slowest invocation's chain, a slow chunk's CHUNK_ELEMS element loads and their index steps
// one after another (16 on 1-byte elements); here each chain is one word's (4 elements at most),
// its loads in flight together. A word touches at most two rows, since a row holds a word or more:
// its row's source and, where it runs past the row end, the next one's. (The wrapper takes the pass
// on rows of 16 bytes and more only; rows under 4 bytes would let a word span three rows.) Measured
// on the H100 against the row pass (small set, [8,3,32,32] with pads of 1; three rounds,
// docs/data/h100_ab_word_pass.md): 1-byte elements 0.70-0.71x the time, 2-byte 0.75-0.80x, 4-byte
// 0.91-0.95x. The wrapper does not take it for 8-byte elements (slower in batches, same file); their
// module is built like every width's and writes the right bytes all the same.
void word_pass(uint g, uint inner, uint row_dst, uint row_src) {
#if ELEM_BYTES == 8
  const uint n_words = 2u * N_DST;
  const uint e0 = g >> 1;
#else
  const uint n_words = N_DST / WORD_ELEMS + uint(N_DST % WORD_ELEMS != 0u);
  const uint e0 = g * WORD_ELEMS;
#endif
  if (g >= n_words) return;
  const uint r = div_dst(e0, inner);
  const uint c0 = e0 - r * row_dst;
  uint off, off_next = 0u;
  const bool row_ok = row_source(r, inner, row_src, off);
  bool next_ok = true;
  if (c0 + WORD_ELEMS > row_dst && e0 + (row_dst - c0) < N_DST)
    next_ok = row_source(r + 1u, inner, row_src, off_next);
  WordSources ws = no_word();
  [[unroll]] for (uint j = 0u; j < WORD_ELEMS; ++j) {
    if (e0 + j < N_DST) {
      const bool next = c0 + j >= row_dst;
      uint s;
      const bool ok = map_coord(inner, next ? c0 + j - row_dst : c0 + j, s) && (next ? next_ok : row_ok);
      ws.at[j] = (next ? off_next : off) + s;
      ws.pasts &= ~(1u << j);
      if (!ok) ws.fills |= 1u << j;
    }
  }
  dst_w[g] = word_value(g, ws);
}

// The tile pass (REGION 5: two chunks per invocation, 6: four, each ROW_CHUNKS apart): like the row
// pass, but the plain chunks are written first, all loads before the first store; the others (a pad
// or a row end inside) are queued, then written each by four invocations, one 32-bit word apiece
// (word_sources and word_value), so that the element loads of one chunk run side by side. A
// subgroup's plain chunks then never wait for a slow path taken by one of its invocations (measured
// on the H200 against one chunk per invocation: image rows 0.84x the time for 1-byte elements, 0.92x
// for 2-byte; rank-5 rows of 1- and 2-byte elements 0.6x the row pass's time). Two queues:
//  - a subgroup's own (SG_QUEUE; REGION 6, and 4-byte elements): right after its plain stores the
//    subgroup numbers its slow chunks by ballots and writes their words itself. No shared memory, no
//    second barrier: measured on the H200 against the workgroup's queue, image rows of 1- and 2-byte
//    elements 0.84-0.85x the time, rank-5 rows of 4-byte elements 0.97-0.98x;
//  - the workgroup's (REGION 5 with 1- and 2-byte elements, where about 30% of rank-5 chunks are
//    slow and a subgroup's own queue took 1.11-1.22x the time): in shared memory, written after a
//    second barrier, two words per round per invocation (their loads in flight together: rank-5 rows
//    of 2-byte elements 0.94-0.96x the time of one word per round).
// Each chunk is queued or written, never both; the order in which queued words are written varies
// between runs, the bytes written do not.
// 8-byte elements queue nothing: a chunk holds two elements, and each invocation writes its own
// slow chunks after its plain ones (slow_chunk). Measured on the H200 against the workgroup's queue:
// rank-5 rows 0.95-0.97x the time. The wrapper runs them in REGION 5 on rows of every length (two
// chunks per invocation: a subgroup's slow chunks hold up fewer plain ones than with four).
// Queueing words instead of chunks for 1- to 4-byte elements (the words inside a row's data written
// at once, one atomic per queued word, 4 KiB more queue) took 1.6-3.3x the time.
#define TILE_PER (REGION == 6u ? 4u : 2u)
#define TILE_QUEUE (ELEM_BYTES != 8)
#if PORTABLE
const bool SG_QUEUE = false;
// The workgroup's queue: TILE_PER * ROW_CHUNKS chunks where it is used, one word elsewhere.
const uint SLOW_SLOTS = !TILE_QUEUE ? 1u : (REGION == 5u ? 2u * ROW_CHUNKS : (REGION == 6u ? 4u * ROW_CHUNKS : 1u));
#else
const bool SG_QUEUE = REGION == 6u || ELEM_BYTES == 4;
// The workgroup's queue: TILE_PER * ROW_CHUNKS chunks where it is used, one word elsewhere.
const uint SLOW_SLOTS = (!TILE_QUEUE || SG_QUEUE) ? 1u : (REGION == 5u ? 2u * ROW_CHUNKS : 1u);
#endif
shared uint slow_list[SLOW_SLOTS];
shared uint slow_count;

// Word recipes (REGION 5, fast builds of 1-byte forward pads: rank-5 rows of 68 bytes). Where a
// row's destination and source lengths are whole 32-bit words, every destination word lies in one
// row, and its bytes come from the same places of its row's source in every row. The workgroup
// builds one recipe per word column of the row (at most 128: the wrapper runs REGION 5 on these rows
// only under 512 bytes), and its queued chunks' words are each put together from one or two aligned
// source word loads by the recipe, instead of an element load and a column mapping per byte
// (word_sources, word_value). A recipe: bits 16 and up, the aligned byte offset in the source row of
// the word's first data byte; bits 4k to 4k + 3, byte k's selector, 0 to 7 a byte of the two source
// words from there, 8 the fill. Measured on the H200 against the element loads (rank5, three rounds,
// docs/data/h200_ab_word_recipes.md): 1-byte pads 0.86-0.88x the time; 2-byte pads (two elements
// a word) 1.02-1.04x, so they keep the element loads.
#define RECIPES (ELEM_BYTES == 1 && MODE != 3 && !PORTABLE)
#if RECIPES
const uint RECIPE_SLOTS = REGION == 5u ? 128u : 1u;
shared uint recipe[RECIPE_SLOTS];

uint make_recipe(uint cw, uint inner) {
  const uint EPW = 4u / uint(ELEM_BYTES);
  uint sb[4];
  bool ok[4];
  uint lo = 0xFFFFFFFFu;
  [[unroll]] for (uint j = 0u; j < EPW; ++j) {
    uint s;
    ok[j] = map_coord(inner, cw * EPW + j, s);
    sb[j] = s * uint(ELEM_BYTES);
    if (ok[j]) lo = min(lo, sb[j]);
  }
  if (lo == 0xFFFFFFFFu) return 0x8888u;  // all fill
  // Consecutive columns map to the same or neighbouring source columns (reflect, replicate) or to
  // consecutive ones (constant), so the word's data bytes lie in lo .. lo + 3, inside base .. base + 6.
  const uint base = lo & ~3u;
  uint sels = 0u;
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    const uint j = k / uint(ELEM_BYTES);
    const uint sel = ok[j] ? sb[j] + k % uint(ELEM_BYTES) - base : 8u;
    sels |= sel << (4u * k);
  }
  return (base << 16) | sels;
}

// The destination word of recipe `rcp` in the row whose source starts at byte b (a multiple of 4).
uint recipe_word(uint b, uint rcp) {
  const uint fill = fill_chunk().x;
#if MODE == 0
  if (b == NO_ROW) return fill;
#endif
  const uint sels = rcp & 0xFFFFu;
  const uint a = (b + (rcp >> 16)) >> 2;
  bool need0 = false, need1 = false;
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    const uint sel = (sels >> (4u * k)) & 15u;
    need0 = need0 || sel < 4u;
    need1 = need1 || (sel >= 4u && sel < 8u);
  }
  const uint w0 = need0 ? src[a] : 0u;
  const uint w1 = need1 ? src[a + 1u] : 0u;
  uint word = 0u;
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    const uint sel = (sels >> (4u * k)) & 15u;
    const uint from = sel < 4u ? w0 >> (8u * sel) : sel < 8u ? w1 >> (8u * (sel - 4u)) : fill >> (8u * k);
    word |= (from & 0xFFu) << (8u * k);
  }
  return word;
}

#endif

void tile_pass(uint g, uint total, uint inner, uint row_dst, uint row_src) {
  const uint lid = gl_LocalInvocationID.x;
  const uint first = (g - lid) * TILE_PER;  // the workgroup's first chunk
  if (first >= total) return;  // the whole workgroup: past the destination
  uint r0, rows;
  row_table(first, ROW_CHUNKS * TILE_PER, inner, row_src, r0, rows);
  if (TILE_QUEUE && !SG_QUEUE && lid == 0u) slow_count = 0u;
#if RECIPES
  const uint row_words = row_dst * uint(ELEM_BYTES) / 4u;
  const bool by_recipe = REGION == 5u && (row_dst * uint(ELEM_BYTES)) % 4u == 0u &&
                         (row_src * uint(ELEM_BYTES)) % 4u == 0u && row_words <= RECIPE_SLOTS;
  if (by_recipe && lid < row_words) recipe[lid] = make_recipe(lid, inner);
#endif
  barrier();
  uvec4 v[TILE_PER];
  bool plain[TILE_PER];
  [[unroll]] for (uint h = 0u; h < TILE_PER; ++h) {
    const uint q = first + lid + h * ROW_CHUNKS;
    plain[h] = false;
    v[h] = uvec4(0u);
    if (q < total) {
      uint k, c;
      table_row(q * uint(CHUNK_ELEMS), r0, inner, row_dst, k, c);
      plain[h] = plain_chunk(q * uint(CHUNK_ELEMS), c, row_start[k], inner, row_dst, row_src, v[h]);
#if TILE_QUEUE
      if (!SG_QUEUE && !plain[h]) slow_list[atomicAdd(slow_count, 1u)] = q;
#endif
    }
  }
  [[unroll]] for (uint h = 0u; h < TILE_PER; ++h)
    if (plain[h]) dst[first + lid + h * ROW_CHUNKS] = v[h];
#if !TILE_QUEUE
  // Unrolled: a loop over plain[] and v[] indexed at run time would put them in local memory.
  [[unroll]] for (uint h = 0u; h < TILE_PER; ++h) {
    const uint q = first + lid + h * ROW_CHUNKS;
    if (!plain[h] && q < total) slow_chunk(q, r0, rows, inner, row_dst, row_src);
  }
#else
  if (!SG_QUEUE) {  // the workgroup's queue
    barrier();
    const uint n = slow_count * 4u;
#if RECIPES
    if (by_recipe) {  // one word per invocation and round
      for (uint i = lid; i < n; i += ROW_CHUNKS) {
        const uint q = slow_list[i >> 2];
        const uint e = q * uint(CHUNK_ELEMS) + (i & 3u) * (4u / uint(ELEM_BYTES));
        uint word = 0u;
        if (e < N_DST) {
          uint k, c;
          table_row(e, r0, inner, row_dst, k, c);
          word = recipe_word(row_start[k], recipe[c / (4u / uint(ELEM_BYTES))]);
        }
        dst_w[q * 4u + (i & 3u)] = word;
      }
      return;
    }
#endif
    for (uint i = lid; i < n; i += 2u * ROW_CHUNKS) {
      const uint i1 = i + ROW_CHUNKS;
      const uint q0 = slow_list[i >> 2];
      const uint q1 = i1 < n ? slow_list[i1 >> 2] : 0u;
      const WordSources s0 = word_sources(q0, i & 3u, r0, rows, inner, row_dst, row_src);
      WordSources s1 = no_word();
      if (i1 < n) s1 = word_sources(q1, i1 & 3u, r0, rows, inner, row_dst, row_src);
      const uint w0 = word_value(i & 3u, s0);
      const uint w1 = word_value(i1 & 3u, s1);
      dst_w[q0 * 4u + (i & 3u)] = w0;
      if (i1 < n) dst_w[q1 * 4u + (i1 & 3u)] = w1;
    }
    return;
  }
#if !PORTABLE
  // The subgroup's own queue: its slow chunks in the order (h, then lane), each invocation taking the
  // words rank, rank + lanes, ...; a word's chunk is found from the ballots, and the index of the
  // invocation that holds it comes by a shuffle. The loop runs the same number of rounds on every
  // invocation of the subgroup (the shuffle needs them all).
  Ballots bs = no_ballots();
  [[unroll]] for (uint h = 0u; h < TILE_PER; ++h) add_ballot(bs, h, !plain[h] && first + lid + h * ROW_CHUNKS < total);
  const uint lanes = active_lanes();
  const uint rank = active_rank();
  const uint items = bs.total * 4u;
  for (uint base = 0u; base < items; base += lanes) {
    const uint i = base + rank;
    uint h;
    const uint q = first + queued_owner(bs, i, items, 2u, lid, h) + h * ROW_CHUNKS;
    WordSources ws = no_word();
    if (i < items) ws = word_sources(q, i & 3u, r0, rows, inner, row_dst, row_src);
    const uint wv = word_value(i & 3u, ws);
    if (i < items) dst_w[q * 4u + (i & 3u)] = wv;
  }
#endif
#endif
}

// The aligned-row pass (REGION 7), for destination and source rows of whole 16-byte chunks (so no
// chunk holds two rows and every source row starts on a chunk) with innermost pads of at most 16
// bytes each: one chunk per invocation, found by locate() (a division per axis by multiply-high), no
// row table, barrier or queue. Every invocation loads one 32-byte window of its source row, two
// aligned chunks, before anything else: a chunk clear of the pads is that window shifted by the
// same number of bytes for the whole tensor, and a chunk that holds a pad slot (the first or the
// last of its row, since the pads are at most one chunk) takes its elements from the window at the
// row's start or end, which holds every element it needs. (The same pass loading a pad chunk's
// elements one by one, after its plain loads, took rank-5 rows 1.06-1.12x the tile pass's time.)

// Element `s` (0 <= s < 2 * CHUNK_ELEMS) of the 32-byte window (a, b).
ELEM window_elem(uvec4 a, uvec4 b, uint s) {
  const uint byte = s * uint(ELEM_BYTES);
  const uint w = byte >> 2;
  const uvec4 h = w < 4u ? a : b;
#if ELEM_BYTES == 8
  return (w & 2u) == 0u ? h.xy : h.zw;
#elif ELEM_BYTES == 4
  return h[w & 3u];
#else
  return (h[w & 3u] >> ((byte & 3u) * 8u)) & ((1u << (8u * uint(ELEM_BYTES))) - 1u);
#endif
}

void aligned_row_chunk(uint k, uint total, uint inner, uint row_dst, uint row_src, uint pl, uint pr) {
  if (k >= total) return;
  uint c, outer_off;
  uint coord[7];
  bool outer_ok;
  locate(k, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
#if MODE == 0
  if (!outer_ok) {  // the row lies in a constant pad of an outer axis
    dst[k] = fill_chunk();
    return;
  }
#endif
  const uint E = uint(CHUNK_ELEMS);
  const bool left_edge = c < pl;
  const bool right_edge = c + E > row_dst - pr;
  const uint row_chunks = row_src / E;  // the source row's chunks (at least one)
  const uint row0 = outer_off / E;      // its first chunk
  uint first;                           // the window's first chunk in the row
  if (left_edge)
    first = 0u;
  else if (right_edge)
    first = row_chunks - min(row_chunks, 2u);
  else
    first = (c - pl) / E;
  const uvec4 a = src4[row0 + first];
  const uvec4 b = src4[row0 + min(first + 1u, row_chunks - 1u)];
  if (!left_edge && !right_edge) {  // source bytes r.. of the window, r the same for every such chunk
    dst[k] = funnel16(a, b, ((c - pl) * uint(ELEM_BYTES)) & 15u);
    return;
  }
  uvec4 v = uvec4(0u);
  [[unroll]] for (uint j = 0u; j < E; ++j) {
    uint s;
    const bool ok = map_coord(inner, c + j, s);
#if MODE == 0
#if ELEM_BYTES == 8
    ELEM e = uvec2(pc.fill_lo, pc.fill_hi);
#else
    ELEM e = pc.fill_lo;
#endif
    if (ok) e = window_elem(a, b, s - first * E);
#else
    const ELEM e = window_elem(a, b, s - first * E);
#endif
    put_elem(v, j, e);
  }
  dst[k] = v;
}

// The group pass (REGION 8), for pipelines built for the geometry (shape constants), on rows of 1-
// and 2-byte elements with an innermost pad whose source rows are whole 16-byte chunks. A group is
// the fewest whole destination rows that make whole 32-bit words (rank-5 rows of 68 u8 or 68 f16:
// one row, 17 or 34 words), and each group is written by GROUP_PIECES invocations, one piece of
// consecutive words apiece (two pieces where a group has 10 words or more: rank-5 u8 9 + 8 words,
// f16 17 + 17). An invocation loads the aligned 16-byte chunks of its group's source rows that its
// words read. Every byte's place in its piece, its source byte and whether it is a pad slot are
// then constants of the pipeline, the same in every invocation of a piece, so the driver folds the
// assembly into straight-line code with no branch, queue or per-element index math: a word of four
// consecutive source bytes of one row is a funnel shift of two source words, the other words (at
// the pads and where a row ends inside the word) are put together byte by byte. A workgroup takes
// its groups piece by piece (invocations 0 to PAD_WG / GROUP_PIECES - 1 the first pieces, and so
// on), so each subgroup runs one piece's code. The words go through a stage in shared memory, so
// that the workgroup stores its run of the destination in order, 16 bytes apiece (each invocation
// storing its own words, 68 bytes from its neighbours', would not coalesce).
// The wrapper's rule (src/ops/gather_plan.cpp) sets GROUP_PIECES and the stage's size STAGE_WORDS
// (specialization constants 41 and 40: the workgroup's groups' words) and keeps a piece within
// PIECE_WORDS words and a group's source rows within GROUP_SRC chunks; the pass trusts it. Rows
// past the last are zeros, never read.
// Measured on the H200 against the form it replaced (groups of whole 8-byte units, one invocation
// each, a 9 KiB stage; docs/data/h200_ab_group_words.md, the product of two A/B runs): rank5 u8
// 0.74-0.79x the time, f16/bf16 0.90-0.95x; rows of 38 from 32 u8 0.41-0.49x (that form's wide
// build), f16 0.66-0.70x (the tile pass). The stage sized for the workgroup's groups keeps more
// workgroups resident, and two pieces keep fewer chunks in registers per invocation: one piece of
// 34 words on f16 took 1.01-1.05x the time of the 8-byte units, two 0.91-0.94x; four pieces took
// 1.04-1.06x the time of two.
#define PIECE_WORDS 36u  // words of a piece, at most
#define GROUP_SRC 16u    // 16-byte chunks of a group's source rows, at most (256 bytes)
#if FVK_PASS == 8
// Their defaults: one piece per group, and a stage that holds any group of one piece.
layout(constant_id = 40) const uint STAGE_WORDS = 2304u;  // PAD_WG * PIECE_WORDS
layout(constant_id = 41) const uint GROUP_PIECES = 1u;
#else
const uint STAGE_WORDS = 1u;
const uint GROUP_PIECES = 1u;
#endif
shared uint stage[STAGE_WORDS];

// Rows per group: the fewest whose bytes make whole 32-bit words.
uint group_rows(uint row_bytes) { return row_bytes % 4u == 0u ? 1u : row_bytes % 2u == 0u ? 2u : 4u; }

void group_pass(uint total, uint inner, uint row_dst, uint row_src) {
  const uint EB = uint(ELEM_BYTES);
  const uint R = row_dst * EB;                      // destination row bytes
  const uint S16 = row_src * EB / 16u;              // chunks of a source row (>= 1)
  const uint P = group_rows(R);
  const uint W = P * R / 4u;                        // words of a group
  const uint K = GROUP_PIECES;
  const uint WP = (W + K - 1u) / K;                 // words of a piece (the last may hold fewer)
  const uint GPW = uint(PAD_WG) / K;                // groups of a workgroup
  const uint rows = N_DST / row_dst;
  const uint groups = (rows + P - 1u) / P;
  const uint lid = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (wg * GPW >= groups) return;  // the whole workgroup: past the destination
  const uint k = lid / GPW;        // the invocation's piece
  const uint j = lid - k * GPW;    // its group in the workgroup
  // The group's rows: where each one's source starts (in chunks), and whether it has one (rows in a
  // constant pad of an outer axis take the fill; rows past the last, zeros).
  uint base[4];
  bool has[4], past[4];
  [[unroll]] for (uint p = 0u; p < 4u; ++p) {
    const uint r = (wg * GPW + j) * P + p;
    uint off = 0u;
    past[p] = p >= P || r >= rows;
    has[p] = !past[p] && row_source(r, inner, row_src, off);
    base[p] = off * EB / 16u;
  }
  const uint fill = fill_chunk().x;  // the fill's bytes, repeated per element
  // One branch per piece, so that in each the piece is a constant (a subgroup takes one).
  [[unroll]] for (uint kk = 0u; kk < 4u; ++kk) {
    if (kk < K && kk == k) {
      // The group's source chunks; the driver drops the loads of those this piece's words do not read.
      uvec4 sv[GROUP_SRC];
      [[unroll]] for (uint c = 0u; c < GROUP_SRC; ++c) {
        const uint p = min(c / S16, 3u);
        sv[c] = uvec4(0u);
        if (c < P * S16 && has[p]) sv[c] = src4[base[p] + c - p * S16];
      }
      [[unroll]] for (uint w = 0u; w < PIECE_WORDS; ++w) {
        const uint wq = kk * WP + w;  // word of the group
        if (w < WP && wq < W) {
          // The word's bytes: their rows, source bytes and kinds.
          uint pw[4], sbw[4];
          bool dw[4];
          bool run = true;
          [[unroll]] for (uint t = 0u; t < 4u; ++t) {
            const uint b = wq * 4u + t;  // byte of the group
            const uint p = min(b / R, 3u);
            const uint cb = b - p * R;  // byte of its row
            const uint col = cb / EB;
            uint s;
            dw[t] = map_coord(inner, col, s);
            pw[t] = p;
            sbw[t] = s * EB + (cb - col * EB);  // byte of the source row
            run = run && dw[t] && p == pw[0] && sbw[t] == sbw[0] + t;
          }
          uint word = 0u;
          if (run) {  // four consecutive source bytes of one row: a funnel shift of two source words
            const uint p = pw[0];
            const uint i = p * S16 * 4u + (sbw[0] >> 2);  // the group's source word
            const uint lo = sv[min(i >> 2, GROUP_SRC - 1u)][i & 3u];
            const uint hi = sv[min((i + 1u) >> 2, GROUP_SRC - 1u)][(i + 1u) & 3u];
            const uint sh = (sbw[0] & 3u) * 8u;
            word = sh == 0u ? lo : (lo >> sh) | (hi << (32u - sh));
            if (!has[p]) word = past[p] ? 0u : fill;
          } else {
            [[unroll]] for (uint t = 0u; t < 4u; ++t) {
              const uint p = pw[t];
              const uint sb = sbw[t];
              const uint x = sv[min(p * S16 + sb / 16u, GROUP_SRC - 1u)][(sb >> 2) & 3u] >> (8u * (sb & 3u));
              uint byte_v = fill >> (8u * t);  // the fill word's bytes repeat every element (t: the byte's place mod 4)
              if (dw[t] && has[p]) byte_v = x;
              if (past[p]) byte_v = 0u;
              word |= (byte_v & 0xFFu) << (8u * t);
            }
          }
          stage[j * W + wq] = word;
        }
      }
    }
  }
  barrier();
  // The workgroup's groups are one run of the destination: 16-byte chunks from its first group's,
  // wg * GPW * W / 4 (a whole number: GPW is a multiple of 16).
  const uint q0 = wg * GPW * W / 4u;
  const uint n = GPW * W / 4u;
  for (uint i = lid; i < n; i += uint(PAD_WG)) {
    if (q0 + i < total) dst[q0 + i] = uvec4(stage[4u * i], stage[4u * i + 1u], stage[4u * i + 2u], stage[4u * i + 3u]);
  }
}

void main() {
  const uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint E = uint(CHUNK_ELEMS);
  const uint total = N_DST / E + uint(N_DST % E != 0u);  // chunks of the destination
  const uint inner = RANK - 1u;
  const uint row_dst = dst_dim(inner);
  const uint row_src = src_dim(inner);
  const uint pl = inner_left(inner);
  const uint pr = inner_right(inner);
  uint c, outer_off;
  uint coord[7];
  bool outer_ok;
  if (REGION == 1u || REGION == 4u) {  // the row pass: no early return before its barrier
    row_pass(g, total, inner, row_dst, row_src);
    return;
  }
  if (REGION == 5u || REGION == 6u) {  // the tile pass: no early return before its barriers
    tile_pass(g, total, inner, row_dst, row_src);
    return;
  }
  if (REGION == 8u) {  // the group pass: no early return before its barrier
    group_pass(total, inner, row_dst, row_src);
    return;
  }
  if (REGION == 2u) {  // the edge pass
    if (g >= pc.n_edge) return;
    const uint b = g / pc.slots;  // row boundary b sits before element b * row_dst
    const uint base = b * row_dst;
    const uint k = (base - min(pr, base)) / E + (g - b * pc.slots);
    if (k >= total || k * E > base + min(pl, N_DST - base)) return;  // past this boundary's chunks
    if (b > 0u && k * E <= base - row_dst + pl) return;                 // the previous boundary's
    if (!is_edge(column(k * E, inner, row_dst), row_dst, pl, pr)) return;  // pass 3's
    locate(k, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
    write_chunk(k, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
    return;
  }
  if (g >= pc.n_chunks) return;  // invocations of this pass
  if (REGION == 9u) {  // the word pass
    word_pass(g, inner, row_dst, row_src);
    return;
  }
  if (REGION == 7u) {  // the aligned-row pass
    aligned_row_chunk(g, total, inner, row_dst, row_src, pl, pr);
    return;
  }
  if (REGION == 3u) {  // the inner pass, rows of 512 bytes and more
    inner_four(g, total, inner, row_dst, row_src, pl, pr);
    return;
  }
  // The one pass. 1-byte elements keep one chunk per invocation on long rows too (measured 5-10
  // points faster).
  if (ELEM_BYTES == 1 || row_dst * uint(ELEM_BYTES) < LONG_ROW_BYTES) {  // one chunk per invocation
    if (g >= total) return;
    locate(g, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
    write_chunk(g, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
    return;
  }
  uint q = (g / 32u) * 128u + (g % 32u);
  if (q >= total) return;
  locate(q, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
  const uint step = 32u * E;  // elements between an invocation's chunks (< a long row)
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    if (k > 0u) {
      q += 32u;
      if (q >= total) return;
      c += step;
      if (c >= row_dst) {  // crossed one row end
        c -= row_dst;
        next_row(coord, outer_off, outer_ok, inner, row_src);
      }
    }
    write_chunk(q, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
  }
}
