#version 450
// Deterministic reflect / replicate pad backward: a gather. Each grad_in element sums every grad_out
// position that the forward pad filled from it, in one fixed order: the Cartesian product of the
// per-axis contributor lists, axis 0 outermost, each list ascending. The sum starts from -0.0, which
// is the same as starting from the first term (x + -0.0 == x for every x but NaN). f16/bf16
// accumulate in f32 and round once; f32 in f32; f64 in f64. An element with a single contributor
// (nearly all of them) is a copy of its bits, so -0.0 and NaN payloads pass unchanged. No atomics,
// no zero-fill: grad_in is fully written, and the result is bit-identical run to run. The total work
// is n_out reads (each grad_out element is read by exactly one grad_in element), however large the
// pads.
//   MODE 1 reflect, 2 replicate.  DTYPE 0 f32, 1 f64, 2 f16, 3 bf16.
#extension GL_EXT_control_flow_attributes : require
#include "float_bits.glsl"
// PORTABLE builds (the *_portable_* kernels) use no subgroup operation: their pass 8 is pass 7.
#ifndef PORTABLE
#define PORTABLE 0
#endif
#if DTYPE == 0 && !PORTABLE
#include "ballot.glsl"  // REGION 8's subgroup queue, f32 only
#endif

layout(local_size_x = 256) in;

#if DTYPE == 1
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uvec2 grad_out[]; };
#define ACC double
#define NEG_ZERO (-0.0LF)
#define BITS uvec2
#define BYTES 8u
#else
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uint grad_out[]; };
#define ACC float
#define NEG_ZERO (-0.0)
#define BITS uint
#if DTYPE == 0
#define BYTES 4u
#else
#define BYTES 2u
#endif
#endif
#define CHUNK (16u / BYTES)  // elements per 16-byte chunk of grad_in
#define LONG_RUN (BYTES == 8u ? 64u : 128u)  // edge pass 6: loads in flight per round trip
#define SHORT_RUN 4u  // add_run: runs up to this long load without a branch
// The same grad_out seen as 16-byte chunks, for the copy path.
layout(set = 0, binding = 0, std430) readonly buffer GradOut4 { uvec4 src4[]; };
#include "window.glsl"
// grad_in written in 16-byte chunks (the allocation is rounded up to 16 bytes).
layout(set = 0, binding = 1, std430) writeonly buffer GradIn4 { uvec4 grad_in4[]; };
// [in_shape, out_shape, left_pad, in_div_multiplier, in_div_shifts], `rank` entries each.
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

// The pass (see below and main): the build compiles one SPIR-V module per pass with FVK_PASS set
// (kernels/CMakeLists.txt), so each module holds its own pass's code only.
#ifndef FVK_PASS
#error "FVK_PASS (the pass) must be defined"
#endif
const uint REGION = FVK_PASS;
// Pass 7 on replicate f32 writes the edge chunks that edge_from_blocks admits itself, from the blocks
// of their direct contributors, after its copy stores, instead of queueing them (see tile_pass). On
// the H200 (rank5, three rounds, docs/data/h200_ab_det_tile_block_edges.md) replicate f32 took 0.94x
// the time (80% -> 85% of copy); reflect f32 1.01x, and 2-byte elements 1.23-1.35x (a subgroup's
// edge chunks then run their sums and f16 roundings while its other invocations wait), so they keep
// the queue. A preprocessor switch, so that every other module is built from the same text as before
// (a portable build's pass 8 is its pass 7).
#define BLOCK_EDGES ((FVK_PASS == 7 || (FVK_PASS == 8 && PORTABLE != 0)) && MODE == 2 && DTYPE == 0)

layout(push_constant) uniform Params {
  uint n_invocations;  // this pass's invocations (see main)
  uint n_in;           // grad_in elements
  uint rank;
  uint slots;          // edge pass: invocations per grad_in row; row pass: chunks per grad_in row
  uint per_block;      // passes 10 and 11: copy workgroups per edge workgroup (K)
} pc;
// The rank: specialization constant 1, which the wrapper sets where a pass is compiled for it (one
// pipeline per pass and rank), so the loops over the axes unroll to the axes there are and
// shape_buf's offsets are constants; 0 (the default) where the pass reads the push constant. The
// wrapper decides, in src/ops/rank_constant.cpp (with the measurements behind it); the kernel
// trusts it.
layout(constant_id = 1) const uint RANK_SC = 0u;
const bool RANK_KNOWN = RANK_SC != 0u;
#define RANK (RANK_KNOWN ? RANK_SC : pc.rank)

// Passes, one SPIR-V module each (REGION; the wrapper runs each as its own pipeline):
//  0: one pass, every chunk;
//  1: the copy chunks only (one row, one contributor per element), four per invocation (see
//     copy_four): lean in registers, so many warps stay in flight;
//  2: the chunks at the two ends of each row that pass 1 leaves, `slots` invocations per grad_in
//     row, in rows whose outer axes have one contributor each;
//  3: every chunk of the rows whose outer axes have several contributors (see multi_row_pass);
//  4: the row pass (see row_pass), every chunk, for rows of whole chunks;
//  5: the tile pass (see tile_pass), every chunk;
//  6: pass 2 for replicate pads of 128 and more: the same chunks, summing LONG_RUN loads at a time;
//  7: the tile pass for rows of whole chunks, without the rows with several outer combinations,
//     which pass 3 writes beside it;
//  8: pass 7 with each subgroup's own queue (f32 builds only; see tile_pass);
//  9: pass 6 with one workgroup per edge chunk, for few rows (see workgroup_edge_chunk);
// 10: passes 1 and 2 in one dispatch, their workgroups interleaved (see interleaved_pass), reflect's
//     mirrors from 16-byte windows (see window_chunk);
// 11: pass 10 with reflect's mirrors loaded one by one (single_row_chunk);
// 12: the element pass (see element_pass), for small tensors: every element summed by itself.
// Passes 1, 2 (or 6) and 3 write disjoint chunks (a chunk belongs to the row of its first element): no
// barrier between them; nor between passes 7 and 3, or 10 (11) and 3.

// The geometry, from the shape constants where the pipeline was built for one (the wrapper then sets
// the rank too; src/ops/shape_constant.cpp), else from shape_buf and the push constants.
#include "shape_constants.glsl"
#define N_IN (SHAPE_KNOWN ? N_DST_SC : pc.n_in)

// n / in_dim(a): a division by a constant where the geometry is one (the driver picks its
// multiply-high), else by multiply-high and shifts (Granlund-Montgomery, exact for every 32-bit n).
uint div_in(uint n, uint a) {
  if (SHAPE_KNOWN) return n / in_dim(a);
  const uint m = shape_buf[3u * RANK + a];
  const uint sh = shape_buf[4u * RANK + a];
  uint hi, lo;
  umulExtended(n, m, hi, lo);
  return (hi + ((n - hi) >> (sh & 0xFFu))) >> (sh >> 8);
}

ACC load(uint idx) {
#if DTYPE == 0
  return uintBitsToFloat(grad_out[idx]);
#elif DTYPE == 1
  return packDouble2x32(grad_out[idx]);
#elif DTYPE == 2
  return f16_to_f32(grad_out[idx >> 1] >> ((idx & 1u) * 16u));
#else
  return bf16_to_f32(grad_out[idx >> 1] >> ((idx & 1u) * 16u));
#endif
}

// The bits of grad_out element idx, and the bits a sum rounds to.
BITS load_bits(uint idx) {
#if DTYPE <= 1
  return grad_out[idx];
#else
  return (grad_out[idx >> 1] >> ((idx & 1u) * 16u)) & 0xFFFFu;
#endif
}
BITS to_bits(ACC v) {
#if DTYPE == 0
  return floatBitsToUint(v);
#elif DTYPE == 1
  return unpackDouble2x32(v);
#elif DTYPE == 2
  return f32_to_f16(v);
#else
  return f32_to_bf16(v);
#endif
}

// Element k of 16 grad_out bytes `x` (k < CHUNK), widened to the accumulator type.
ACC chunk_elem(uvec4 x, uint k) {
#if DTYPE == 0
  return uintBitsToFloat(x[k]);
#elif DTYPE == 1
  return packDouble2x32(uvec2(x[2u * k], x[2u * k + 1u]));
#elif DTYPE == 2
  return f16_to_f32(x[k >> 1] >> ((k & 1u) * 16u));
#else
  return bf16_to_f32(x[k >> 1] >> ((k & 1u) * 16u));
#endif
}

// Per axis, the grad_out coordinates that map to grad_in coordinate ci, ascending:
//   reflect:   up to three single positions (left mirror, direct, right mirror);
//   replicate: one range [p0, p0 + count - 1].
// `pos(k)` gives the k-th of them. Kept in registers: the axis loops below are unrolled, so every
// array index is a constant.
struct Contributors {
  uint p0, p1, p2;
  uint count;
};

Contributors contributors(uint a, uint ci) {
  const uint n = in_dim(a);
  const uint left = left_pad(a);
  const uint right = out_dim(a) - n - left;
  Contributors s;
#if MODE == 1
  const bool has_left = ci >= 1u && ci <= left;
  const bool has_right = ci + 2u <= n && ci + 1u + right >= n;  // n-1-right <= ci <= n-2
  const uint direct = ci + left;
  const uint mirror_right = left + 2u * (n - 1u) - ci;
  s.p0 = has_left ? left - ci : direct;
  s.p1 = has_left ? direct : mirror_right;
  s.p2 = mirror_right;
  s.count = 1u + (has_left ? 1u : 0u) + (has_right ? 1u : 0u);
#else
  s.p0 = ci == 0u ? 0u : ci + left;
  const uint hi = ci == n - 1u ? out_dim(a) - 1u : ci + left;
  s.p1 = 0u;
  s.p2 = 0u;
  s.count = hi - s.p0 + 1u;
#endif
  return s;
}

uint pos(Contributors s, uint k) {
#if MODE == 1
  return k == 0u ? s.p0 : k == 1u ? s.p1 : s.p2;
#else
  return s.p0 + k;
#endif
}

// Adds, in order, the contributors `c` of one axis at grad_out offset `off` (stride 1). A replicate
// run of up to SHORT_RUN terms loads them all at once; a longer one (an edge can have thousands)
// eight at a time (or 32 / LONG_RUN in the edge passes), in flight together; the adds stay in order.
// On the H200 the branch-free short runs took 0.96x the time on the small set's replicate f64 and
// 0.98-0.99x on rank5's replicate rows (data/h200_ab_det_short_runs_clamped.md); loads behind a
// bound each were slower (data/h200_ab_det_short_runs.md).
void add_run(inout precise ACC acc, uint off, Contributors c) {
#if MODE == 1
  // At most three: their loads go out together (no chain of load, add, load), the adds in order.
  ACC x[3];
  [[unroll]] for (uint k = 0u; k < 3u; ++k) x[k] = k < c.count ? load(off + pos(c, k)) : ACC(0);
  [[unroll]] for (uint k = 0u; k < 3u; ++k)
    if (k < c.count) acc += x[k];
#else
  const uint p = off + c.p0;
  if (c.count == 1u) {
    acc += load(p);
    return;
  }
  if (c.count <= SHORT_RUN) {
    // Short runs (pads under SHORT_RUN): SHORT_RUN loads without a branch, those past the run's end
    // repeating its last position, so that they all go out together; the adds in order.
    ACC x[SHORT_RUN];
    [[unroll]] for (uint j = 0u; j < SHORT_RUN; ++j) x[j] = load(p + min(j, c.count - 1u));
    [[unroll]] for (uint j = 0u; j < SHORT_RUN; ++j)
      if (j < c.count) acc += x[j];
    return;
  }
  uint k = 0u;
  if (REGION == 6u) {  // the edge pass's build for long runs (replicate pads of 128 and more)
    for (; k + LONG_RUN <= c.count; k += LONG_RUN) {
      ACC x[LONG_RUN];
      [[unroll]] for (uint j = 0u; j < LONG_RUN; ++j) x[j] = load(p + k + j);
      [[unroll]] for (uint j = 0u; j < LONG_RUN; ++j) acc += x[j];
    }
  }
  if (REGION == 2u || REGION == 6u) {  // the edge pass: few invocations, each a long chain; more loads in flight
    for (; k + 32u <= c.count; k += 32u) {
      ACC x[32];
      [[unroll]] for (uint j = 0u; j < 32u; ++j) x[j] = load(p + k + j);
      [[unroll]] for (uint j = 0u; j < 32u; ++j) acc += x[j];
    }
  }
  for (; k + 8u <= c.count; k += 8u) {
    ACC x[8];
    [[unroll]] for (uint j = 0u; j < 8u; ++j) x[j] = load(p + k + j);
    [[unroll]] for (uint j = 0u; j < 8u; ++j) acc += x[j];
  }
  for (; k < c.count; ++k) acc += load(p + k);
#endif
}

// r / c for a contributor count c: reflect lists hold 1 to 3 positions and r < 3^8 < 2^16 (eight
// axes at most), so a shift or a multiply-high replaces the division ((r * 0xAAAB) >> 17 == r / 3
// for every r < 2^16).
uint div_count(uint r, uint c) {
#if MODE == 1
  return c == 3u ? (r * 0xAAABu) >> 17 : r >> (c - 1u);
#else
  return r / c;
#endif
}

// The next odometer digit of a combination number r over a list of c entries (r % c), leaving the
// rest in r (r / c).
uint next_digit(inout uint r, uint c) {
  const uint q = div_count(r, c);
  const uint k = r - q * c;
  r = q;
  return k;
}

// Grad_in element e alone, in the fixed order: the Cartesian product of the per-axis lists, axis 0
// outermost, last axis fastest.
BITS gather(uint e) {
  Contributors ax[8];
  uint stride[8];
  uint rem = e;
  uint st = 1u;
  uint outer_off = 0u;  // offset of the first contributor on every axis but the innermost
  uint outer_terms = 1u;
  const uint inner = RANK - 1u;
  [[unroll]] for (int a = 7; a >= 0; --a) {
    ax[a].p0 = 0u; ax[a].p1 = 0u; ax[a].p2 = 0u; ax[a].count = 1u;
    stride[a] = 0u;
    if (uint(a) < RANK) {
      const uint q = div_in(rem, uint(a));
      ax[a] = contributors(uint(a), rem - q * in_dim(uint(a)));
      rem = q;
      stride[a] = st;
      st *= out_dim(uint(a));
      if (uint(a) != inner) {
        outer_off += ax[a].p0 * stride[a];
        outer_terms *= ax[a].count;
      }
    }
  }
  // The innermost axis is the one with stride 1.
  Contributors in_ax = ax[0];
  [[unroll]] for (int a = 1; a < 8; ++a)
    if (uint(a) == inner) in_ax = ax[a];
  if (outer_terms * in_ax.count == 1u) return load_bits(outer_off + in_ax.p0);
  precise ACC acc = NEG_ZERO;
  if (outer_terms == 1u) {
    add_run(acc, outer_off, in_ax);
    return to_bits(acc);
  }
  const uint total = outer_terms * in_ax.count;
  for (uint t = 0u; t < total; ++t) {
    uint r = t;
    uint off = 0u;
    [[unroll]] for (int a = 7; a >= 0; --a) {
      if (uint(a) < RANK) {
        uint k = 0u;
        if (ax[a].count > 1u) k = next_digit(r, ax[a].count);
        off += pos(ax[a], k) * stride[a];
      }
    }
    acc += load(off);
  }
  return to_bits(acc);
}

// Whether every element of the chunk at innermost coordinate ci0 has one innermost contributor.
bool inner_single(uint ci0) {
  const uint a = RANK - 1u;
  const uint n = in_dim(a);
  const uint left = left_pad(a);
  const uint right = out_dim(a) - n - left;
  const uint ci1 = ci0 + CHUNK - 1u;
#if MODE == 1
  // Mirrored onto 1..left and onto n-1-right..n-2.
  const bool lo = left >= 1u && ci0 <= left && ci1 >= 1u;
  const bool hi = right >= 1u && ci1 + 1u + right >= n && ci0 + 2u <= n;
#else
  // Clamped onto 0 and n-1.
  const bool lo = left >= 1u && ci0 == 0u;
  const bool hi = right >= 1u && ci1 == n - 1u;
#endif
  return !lo && !hi;
}

// Whether the chunk of grad_in elements e0 .. e0 + CHUNK - 1, from column ci0 of a row of n, lies in
// that one row.
bool in_one_row(uint e0, uint ci0, uint n) { return ci0 + CHUNK <= n && e0 + CHUNK <= N_IN; }

// Whether a chunk inside one row (its outer axes with `terms` combinations, from column ci0) is a
// copy: every element has one contributor, so the chunk is 16 consecutive grad_out bytes.
bool is_copy(uint terms, uint ci0) { return terms == 1u && inner_single(ci0); }

// Stores the CHUNK elements of one 16-byte chunk of grad_in.
void store_chunk(uint q, BITS v[CHUNK]) {
#if DTYPE == 0
  grad_in4[q] = uvec4(v[0], v[1], v[2], v[3]);
#elif DTYPE == 1
  grad_in4[q] = uvec4(v[0], v[1]);
#else
  uvec4 r;
  [[unroll]] for (uint w = 0u; w < 4u; ++w) r[w] = v[2u * w] | (v[2u * w + 1u] << 16u);
  grad_in4[q] = r;
#endif
}

// The bits of element k of 16 grad_out bytes `x` (k < CHUNK).
BITS chunk_bits(uvec4 x, uint k) {
#if DTYPE == 0
  return x[k];
#elif DTYPE == 1
  return uvec2(x[2u * k], x[2u * k + 1u]);
#else
  return (x[k >> 1] >> ((k & 1u) * 16u)) & 0xFFFFu;
#endif
}

// Chunk q of grad_in, its elements ci0 .. ci0 + CHUNK - 1 of one row whose outer axes have a single
// contributor, that row starting at grad_out offset `row_off`. Every element's direct contributor
// (ci + left) comes from one 16-byte load; an element with one contributor is its bits, the others
// sum their few (reflect) or many (replicate edge) contributors along the row.
void single_row_chunk(uint q, uint row_off, uint ci0) {
  const uint inner = RANK - 1u;
  const uint n = in_dim(inner);
  const uint left = left_pad(inner);
  const uint right = out_dim(inner) - n - left;
  const uvec4 direct = load16((row_off + ci0 + left) * BYTES);
  BITS v[CHUNK];
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) v[k] = chunk_bits(direct, k);
#if MODE == 1
  // Mirrors: every element loads a left and a right one, without a branch (its direct position
  // where it has none), so that all these loads go out together.
  ACC lm[CHUNK], rm[CHUNK];
  bool hl[CHUNK], hr[CHUNK];
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) {
    const uint ci = ci0 + k;
    hl[k] = ci >= 1u && ci <= left;
    hr[k] = ci + 2u <= n && ci + 1u + right >= n;  // n-1-right <= ci <= n-2
    lm[k] = load(row_off + (hl[k] ? left - ci : ci + left));
    rm[k] = load(row_off + (hr[k] ? left + 2u * (n - 1u) - ci : ci + left));
  }
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) {
    if (hl[k] || hr[k]) {  // the order of contributors(): left mirror, direct, right mirror
      precise ACC acc = NEG_ZERO;
      if (hl[k]) acc += lm[k];
      acc += chunk_elem(direct, k);
      if (hr[k]) acc += rm[k];
      v[k] = to_bits(acc);
    }
  }
#else
  // Only elements 0 and n - 1 have several contributors: their pads. The chunk lies in one row, so
  // element 0 can only be its first and n - 1 its last (n >= CHUNK >= 2: they are two elements),
  // and the sums are written for those two slots only (not once per slot: a long run's unrolled
  // loads would be repeated CHUNK times in the code).
  if (ci0 == 0u && left > 0u) {
    precise ACC acc = NEG_ZERO;
    add_run(acc, row_off, contributors(inner, 0u));
    v[0] = to_bits(acc);
  }
  if (ci0 + CHUNK == n && right > 0u) {
    precise ACC acc = NEG_ZERO;
    add_run(acc, row_off, contributors(inner, n - 1u));
    v[CHUNK - 1u] = to_bits(acc);
  }
#endif
  store_chunk(q, v);
}

// Pass 10's reflect edge chunk q, its elements ci0 .. ci0 + CHUNK - 1 of one row whose outer axes
// have a single contributor, that row starting at grad_out offset `row_off`. The wrapper's rule
// (pads of a chunk or less, n > left + right + CHUNK) puts every mirror of the chunk in one pad:
// they come from one 16-byte window, the row's first CHUNK grad_out elements (the left pad's) or
// its last (the right pad's), and no element has both. The sums replace their elements in the
// chunk of direct contributors. Few registers: this path shares its pass with the copy
// workgroups, whose warps in flight carry the copy's bandwidth.
void put_bits(inout uvec4 x, uint k, BITS b) {
#if DTYPE == 0
  x[k] = b;
#elif DTYPE == 1
  x[2u * k] = b.x;
  x[2u * k + 1u] = b.y;
#else
  x[k >> 1] = bitfieldInsert(x[k >> 1], b, int((k & 1u) * 16u), 16);
#endif
}

void window_chunk(uint q, uint row_off, uint ci0) {
  const uint inner = RANK - 1u;
  const uint n = in_dim(inner);
  const uint left = left_pad(inner);
  const uint right = out_dim(inner) - n - left;
  uvec4 x = load16((row_off + ci0 + left) * BYTES);
  const uint wbase = ci0 <= left ? 0u : out_dim(inner) - CHUNK;
  const uvec4 w = load16((row_off + wbase) * BYTES);
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) {
    const uint ci = ci0 + k;
    const bool hl = ci >= 1u && ci <= left;
    const bool hr = ci + 2u <= n && ci + 1u + right >= n;  // n-1-right <= ci <= n-2
    if (hl || hr) {
      const ACC d = chunk_elem(x, k);
      const ACC m = chunk_elem(w, (hl ? left - ci : left + 2u * (n - 1u) - ci) - wbase);
      precise ACC acc = NEG_ZERO;  // the order of contributors(): left mirror, direct, right mirror
      acc += hl ? m : d;
      acc += hl ? d : m;
      put_bits(x, k, to_bits(acc));
    }
  }
  grad_in4[q] = x;
}

#if BLOCK_EDGES
// Replicate's edge chunks of a row with one outer combination, from the two aligned 16-byte blocks
// that their direct contributors span (pass 7's BLOCK_EDGES). Where the row's innermost pads are
// under a chunk, n >= 2 * CHUNK, and the direct window starts r bytes into its first block with
// left * BYTES <= r and r + right * BYTES <= 16, the pad positions that the row's first (or last)
// element sums lie in the same 32 bytes, just before (or after) the direct window: the chunk needs no
// load beyond the copy's. r can vary from row to row (rank5 f32: rows of 272 bytes, r = 8).
bool edge_from_blocks(uint r) {
  const uint inner = RANK - 1u;
  const uint n = in_dim(inner);
  const uint left = left_pad(inner);
  const uint right = out_dim(inner) - n - left;
  return n >= 2u * CHUNK && left < CHUNK && right < CHUNK && r != 0u && left * BYTES <= r &&
         r + right * BYTES <= 16u;
}

// The chunk at innermost coordinate ci0 (0 or n - CHUNK: under edge_from_blocks' rule no other chunk
// holds a row end) from blocks a and b, its direct window starting r bytes into a: the direct
// contributors, with the row's first element replaced by the sum of positions 0..left (ci0 == 0) or
// its last by that of the last right + 1, ascending (add_run's order). w holds the row's first (or
// last) CHUNK grad_out elements; with shape constants its indices are constants.
uvec4 edge_chunk_from_blocks(uvec4 a, uvec4 b, uint r, uint ci0) {
  const uint inner = RANK - 1u;
  const uint left = left_pad(inner);
  const uint right = out_dim(inner) - in_dim(inner) - left;
  uvec4 x = funnel16(a, b, r);
  const bool lo = ci0 == 0u;
  const uint rw = lo ? r - left * BYTES : r + right * BYTES;
  const uvec4 w = rw == 16u ? b : funnel16(a, b, rw);
  if (lo ? left > 0u : right > 0u) {  // a side without a pad keeps its bits
    precise ACC acc = NEG_ZERO;
    [[unroll]] for (uint j = 0u; j < CHUNK; ++j)
      if (lo ? j <= left : j + 1u + right >= CHUNK) acc += chunk_elem(w, j);
    put_bits(x, lo ? 0u : CHUNK - 1u, to_bits(acc));
  }
  return x;
}
#endif

// The element pass (REGION 12), for small tensors with short contributor lists: one invocation per
// element, each summed by itself in the fixed order (gather's). Small tensors are launch- and
// latency-bound: with a chunk per invocation the time is the slowest invocation's chain, an edge
// chunk's CHUNK sums one after the other; here every chain is one element's few terms, loaded four
// at a time. 4- and 8-byte elements are stored by their invocation; 2-byte ones pass their bits
// through shared memory, and half the workgroup stores them in pairs (32-bit words).
#if DTYPE == 1
layout(set = 0, binding = 1, std430) writeonly buffer GradInW { uvec2 grad_in_w[]; };
#else
layout(set = 0, binding = 1, std430) writeonly buffer GradInW { uint grad_in_w[]; };
#endif
const uint ELEMENT_STAGE = REGION == 12u && BYTES == 2u ? 256u : 1u;  // see ROW_TABLE
shared uint element_bits[ELEMENT_STAGE];

BITS element_sum(uint e) {
  Contributors ax[8];
  uint stride[8];
  uint digit[8];
  uint rem = e;
  uint st = 1u;
  uint off = 0u;  // the first combination's grad_out offset
  uint total = 1u;
  [[unroll]] for (int a = 7; a >= 0; --a) {
    ax[a].p0 = 0u; ax[a].p1 = 0u; ax[a].p2 = 0u; ax[a].count = 1u;
    stride[a] = 0u;
    digit[a] = 0u;
    if (uint(a) < RANK) {
      const uint q = div_in(rem, uint(a));
      ax[a] = contributors(uint(a), rem - q * in_dim(uint(a)));
      rem = q;
      stride[a] = st;
      st *= out_dim(uint(a));
      off += ax[a].p0 * stride[a];
      total *= ax[a].count;
    }
  }
  if (total == 1u) return load_bits(off);
  precise ACC acc = NEG_ZERO;
  for (uint t = 0u; t < total; t += 4u) {
    // Four terms' loads in flight together (the last repeated past the end), the adds in order.
    ACC x[4];
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      x[j] = load(off);
      if (t + j + 1u < total) {
        // The next combination: an odometer over the axes, the innermost (stride 1) fastest.
        bool carry = true;
        [[unroll]] for (int a = 7; a >= 0; --a) {
          if (carry && uint(a) < RANK && ax[a].count > 1u) {
            const uint d = digit[a];
            if (d + 1u < ax[a].count) {
              off += (pos(ax[a], d + 1u) - pos(ax[a], d)) * stride[a];
              digit[a] = d + 1u;
              carry = false;
            } else {
              off -= (pos(ax[a], d) - ax[a].p0) * stride[a];
              digit[a] = 0u;
            }
          }
        }
      }
    }
    [[unroll]] for (uint j = 0u; j < 4u; ++j)
      if (t + j < total) acc += x[j];
  }
  return to_bits(acc);
}

// Invocation g: element g. 2-byte builds run whole workgroups (no early return before the barrier).
void element_pass(uint g) {
#if DTYPE <= 1
  if (g < N_IN) grad_in_w[g] = element_sum(g);
#else
  const uint lid = gl_LocalInvocationID.x;
  element_bits[lid] = g < N_IN ? element_sum(g) : 0u;
  barrier();
  const uint w = (g - lid) / 2u + lid;  // the workgroup's words: 128 from its first element's
  if (lid < 128u && 2u * w < N_IN) grad_in_w[w] = element_bits[2u * lid] | (element_bits[2u * lid + 1u] << 16u);
#endif
}

// The grad_out offset of outer combination t (odometer order, axis 0 outermost) of the per-axis
// lists `oax` with strides `ostride`.
uint term_offset(uint t, Contributors oax[7], uint ostride[7]) {
  uint r = t;
  uint off = 0u;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    if (uint(a) < RANK - 1u) {
      uint k = 0u;
      if (oax[a].count > 1u) k = next_digit(r, oax[a].count);
      off += pos(oax[a], k) * ostride[a];
    }
  }
  return off;
}

// Grad_in row `row`'s outer axes: their contributor lists `oax` and grad_out strides `ostride`,
// the number of combinations `terms`, and (first_off) the grad_out offset of the row the first
// combination reads.
void outer_axes(uint row, out Contributors oax[7], out uint ostride[7], out uint terms, out uint first_off) {
  const uint inner = RANK - 1u;
  terms = 1u;
  first_off = 0u;
  uint st = out_dim(inner);
  [[unroll]] for (int a = 6; a >= 0; --a) {
    oax[a].p0 = 0u; oax[a].p1 = 0u; oax[a].p2 = 0u; oax[a].count = 1u;
    ostride[a] = 0u;
    if (uint(a) < inner) {
      const uint q2 = div_in(row, uint(a));
      oax[a] = contributors(uint(a), row - q2 * in_dim(uint(a)));
      row = q2;
      ostride[a] = st;
      terms *= oax[a].count;
      first_off += oax[a].p0 * st;
      st *= out_dim(uint(a));
    }
  }
}

// Chunk q of grad_in, its elements ci0 .. ci0 + CHUNK - 1 of one row whose outer axes have
// `outer_terms` > 1 combinations (lists `oax`, strides `ostride`).
void multi_row_chunk(uint q, uint ci0, Contributors oax[7], uint ostride[7], uint outer_terms) {
  const uint inner = RANK - 1u;
  precise ACC acc[CHUNK];
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) acc[k] = NEG_ZERO;
  // Outer combinations in odometer order; for each, every element adds its innermost
  // contributors: per element, exactly the order of the general product.
  if ((REGION == 3u && MODE == 2 || REGION == 4u) && CHUNK >= 4u) {
    // Pass 3 (replicate) and the row pass, 2- and 4-byte elements: a combination's direct
    // contributors of the whole chunk are 16 consecutive grad_out bytes, one 16-byte load (or two
    // and a funnel shift); only the elements with several innermost contributors (`ends`: a
    // replicate row's two ends, the reflect mirrors) load theirs one by one. On the H200 (rank5, 2
    // rounds) pass 3 took 0.79-0.80x the time of an element load each on f16/bf16, 0.94x on f32;
    // f64 (two elements a chunk) 1.02x and reflect 1.00-1.04x (80 registers instead of 64 on f16;
    // with pass 3's lean path still 1.01-1.02x at 40, docs/data/h200_ab_det_lean_multi_row.md)
    // keep the element loads there; two or four combinations' loads in flight together took
    // 1.03-1.36x. The row pass (small set, 3 rounds): replicate f16/bf16 0.82-0.83x the time,
    // reflect 0.91-0.95x, f32 0.95-0.98x; f64 1.01-1.03x keeps the element loads.
    uint ends = 0u;  // bit k: element k has several innermost contributors
    [[unroll]] for (uint k = 0u; k < CHUNK; ++k)
      if (contributors(inner, ci0 + k).count > 1u) ends |= 1u << k;
    const uint direct = ci0 + left_pad(inner);
#if MODE == 2
    // Replicate: only a row's first and last elements have several innermost contributors, and the
    // chunk lies in one row, so they can only be its slots 0 and CHUNK - 1 (two slots: CHUNK >= 4).
    // Their runs go to two accumulators of their own, one add_run each, instead of one per element
    // of the chunk, the order of every sum unchanged. On the H200 the pass then keeps no local
    // memory (32-48 bytes with one per element) and took rank5 replicate bf16 0.89x the time, f16
    // 0.93x, f32 0.94x, f64 1.00x (three rounds). The slots are fixed, not found from the chunk's
    // ends at run time: with pass 3's lean path (multi_row_pass) the found slots cost the 2-byte
    // pass 16 bytes of local memory (1.03-1.04x the time), the fixed ones none.
    const uint n = in_dim(inner);
    const bool first = ci0 == 0u && left_pad(inner) > 0u;
    const bool last = ci0 + CHUNK == n && out_dim(inner) - n - left_pad(inner) > 0u;
    const Contributors c0 = contributors(inner, 0u);
    const Contributors c1 = contributors(inner, n - 1u);
    precise ACC end0 = NEG_ZERO, end1 = NEG_ZERO;
    for (uint t = 0u; t < outer_terms; ++t) {
      const uint off = term_offset(t, oax, ostride);
      const uvec4 x = load16((off + direct) * BYTES);
      [[unroll]] for (uint k = 0u; k < CHUNK; ++k)
        if (!(k == 0u && first) && !(k == CHUNK - 1u && last)) acc[k] += chunk_elem(x, k);
      if (first) add_run(end0, off, c0);
      if (last) add_run(end1, off, c1);
    }
    if (first) acc[0] = end0;
    if (last) acc[CHUNK - 1u] = end1;
#else
    for (uint t = 0u; t < outer_terms; ++t) {
      const uint off = term_offset(t, oax, ostride);
      const uvec4 x = load16((off + direct) * BYTES);
      [[unroll]] for (uint k = 0u; k < CHUNK; ++k) {
        if ((ends & (1u << k)) != 0u) {
          add_run(acc[k], off, contributors(inner, ci0 + k));
        } else {
          acc[k] += chunk_elem(x, k);
        }
      }
    }
#endif
  } else {
    for (uint t = 0u; t < outer_terms; ++t) {
      const uint off = term_offset(t, oax, ostride);
      [[unroll]] for (uint k = 0u; k < CHUNK; ++k) add_run(acc[k], off, contributors(inner, ci0 + k));
    }
  }
  BITS v[CHUNK];
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) v[k] = to_bits(acc[k]);
  store_chunk(q, v);
}

// Writes 16-byte chunk q of grad_in (CHUNK consecutive elements). When they lie in one row whose
// outer axes have a single contributor (nearly always), the outer index math is done once for the
// chunk; when in addition every element has one innermost contributor, the chunk is a copy of 16
// grad_out bytes (one or two 16-byte loads and a funnel shift), which the passes that leave copies
// to the copy pass skip (`skip_copies`).
void write_chunk(uint q, bool skip_copies) {
  const uint inner = RANK - 1u;
  const uint e0 = q * CHUNK;
  const uint n_inner = in_dim(inner);
  const uint row = div_in(e0, inner);
  const uint ci0 = e0 - row * n_inner;
  if (in_one_row(e0, ci0, n_inner)) {
    Contributors oax[7];
    uint ostride[7];
    uint outer_terms, first_off;
    outer_axes(row, oax, ostride, outer_terms, first_off);
    if (is_copy(outer_terms, ci0)) {
      if (!skip_copies) grad_in4[q] = load16((first_off + ci0 + left_pad(inner)) * BYTES);
      return;
    }
    if (outer_terms == 1u) {
      single_row_chunk(q, first_off, ci0);
    } else {
      multi_row_chunk(q, ci0, oax, ostride, outer_terms);
    }
    return;
  }
  BITS v[CHUNK];
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) v[k] = e0 + k < N_IN ? gather(e0 + k) : BITS(0u);
  store_chunk(q, v);
}

// Grad_in row r's number of outer combinations, and (first_off) where the first one's row starts.
uint row_outer(uint r, out uint first_off) {
  Contributors oax[7];
  uint ostride[7];
  uint terms;
  outer_axes(r, oax, ostride, terms, first_off);
  return terms;
}

uint row_terms(uint r) {
  uint unused;
  return row_outer(r, unused);
}

// The row pass (REGION 4), for rows of whole chunks (R = `slots` chunks, R <= 256): each
// workgroup writes the chunks of G = 256 / R consecutive grad_in rows, in column order: invocation
// i takes chunk i / G of row i % G. Its invocations first look up the outer axes of those rows (one
// walk per row, into shared memory). Column order puts the chunks at the rows' ends, which sum
// several contributors, into their own subgroups, and the copy chunks (one or two 16-byte loads)
// into others: where G is a multiple of the subgroup size, a subgroup runs one of the two paths,
// not both.
#define ROW_LANES 256u  // the workgroup size
// Sized per pass: declared shared memory costs a pipeline whether its pass uses it or not, so the
// passes that do not use these arrays declare one word.
const uint ROW_TABLE = REGION == 4u ? ROW_LANES : 1u;
shared uint row_first[ROW_TABLE];  // outer_axes' first_off
shared uint row_count[ROW_TABLE];  // outer_axes' terms

void row_pass(uint g) {
  const uint lid = gl_LocalInvocationID.x;
  const uint inner = RANK - 1u;
  const uint R = pc.slots;
  const uint G = ROW_LANES / R;
  const uint rows = N_IN / in_dim(inner);
  const uint r0 = (g - lid) / ROW_LANES * G;  // the workgroup's first row
  if (r0 >= rows) return;                    // the whole workgroup: past grad_in
  if (lid < G && r0 + lid < rows) {
    uint off;
    row_count[lid] = row_outer(r0 + lid, off);
    row_first[lid] = off;
  }
  barrier();
  const uint k = lid % G;
  const uint j = lid / G;
  if (j >= R || r0 + k >= rows) return;
  const uint row = r0 + k;
  const uint q = row * R + j;
  const uint ci0 = j * CHUNK;
  const uint terms = row_count[k];
  if (terms == 1u) {
    const uint off = row_first[k];
    if (inner_single(ci0)) {
      grad_in4[q] = load16((off + ci0 + left_pad(inner)) * BYTES);
    } else {
      single_row_chunk(q, off, ci0);
    }
    return;
  }
  Contributors oax[7];
  uint ostride[7];
  uint outer_terms, first_off;
  outer_axes(row, oax, ostride, outer_terms, first_off);
  multi_row_chunk(q, ci0, oax, ostride, outer_terms);
}

// The tile pass (REGION 5), for rows of CHUNK elements and more: each workgroup writes TILE_PER * 256
// consecutive chunks (TILE_PER per invocation, 256 apart; see TILE_PER). It first looks up the outer axes of every
// row those chunks touch (once per row, into shared memory); then each invocation loads and stores
// its copy chunks and queues the others: chunks whose sums stay in one row with a single outer
// combination at the queue's front, the rest (several outer combinations, or across a row end) at
// its back. After a barrier the queued chunks are written one per invocation, front first, so a
// subgroup runs one kind of path, and the copy chunks never wait for a sum (BLOCK_EDGES builds
// write the edge chunks that edge_from_blocks admits themselves, after the copy stores, and queue
// only the others). REGION 7 is the same pass
// for rows of whole chunks (no chunk crosses a row end) that leaves the rows with several outer
// combinations, its queue's back, to pass 3. REGION 8 is REGION 7 without the shared queue and its
// second barrier: right after its copy stores, each subgroup numbers its queued chunks with ballots
// and sums them itself, one chunk per invocation (nothing goes to the back: whole-chunk rows). On
// the H200, image f32 (rows of 2 KiB, 1.2% of them with several outer combinations) took 0.93-0.94x
// the time of the split passes with it; image f16/bf16 1.00-1.46x and rank5 (REGION 7 rows, about
// one chunk in eight queued, so a subgroup's few invocations sum while the rest wait) 1.03-1.09x.
// Chunks per invocation: two, or one in pass 7 on 4- and 8-byte elements (more invocations, half
// the registers of the loads in flight; the row table per 256 chunks). On the H200 (rank5, three
// rounds, docs/data/h200_ab_det_tile_one.md) one took reflect f32 0.97x the time and replicate f64
// 0.95x, replicate f32 1.00x; on f16/bf16 reflect 1.03-1.04x, so 2-byte elements keep two. A
// portable build's pass 8 is its pass 7 (no subgroup queue), chunk count included.
#define TILE_PER (((REGION == 7u || (REGION == 8u && PORTABLE != 0)) && BYTES >= 4u) ? 1u : 2u)
#define IS_TILE (REGION == 5u || REGION == 7u || REGION == 8u)
#define SINGLE_ROWS (REGION == 7u || REGION == 8u)  // the pass 3 rows are pass 3's
const uint TILE_ROWS = IS_TILE ? TILE_PER * ROW_LANES + 2u : 1u;  // rows of CHUNK elements or more
#if PORTABLE
const bool SG_QUEUE = false;  // REGION 8 runs as REGION 7
#else
const bool SG_QUEUE = REGION == 8u;
#endif
const uint TILE_QUEUE = (IS_TILE && !SG_QUEUE) ? TILE_PER * ROW_LANES : 1u;
shared uint tile_first[TILE_ROWS];  // outer_axes' first_off
shared uint tile_terms[TILE_ROWS];  // outer_axes' terms
shared uint tile_queue[TILE_QUEUE];
shared uint tile_count[2];  // queued at the front, at the back

void tile_pass(uint g) {
  const uint lid = gl_LocalInvocationID.x;
  const uint inner = RANK - 1u;
  const uint n = in_dim(inner);
  const uint total = (N_IN + CHUNK - 1u) / CHUNK;
  const uint first = (g - lid) * TILE_PER;  // the workgroup's first chunk
  if (first >= total) return;              // the whole workgroup: past grad_in
  const uint e_begin = first * CHUNK;
  const uint e_end = min(e_begin + TILE_PER * ROW_LANES * CHUNK, N_IN);
  const uint r0 = div_in(e_begin, inner);
  const uint rows = min(div_in(e_end - 1u, inner) - r0 + 1u, TILE_ROWS);
  for (uint k = lid; k < rows; k += ROW_LANES) {
    uint off;
    tile_terms[k] = row_outer(r0 + k, off);
    tile_first[k] = off;
  }
  if (!SG_QUEUE && lid < 2u) tile_count[lid] = 0u;
  barrier();
  uvec4 v[TILE_PER];
  bool plain[TILE_PER];
  // REGION 8: the chunks its subgroup queue sums (single-row sums; its rows are whole chunks, so no
  // chunk crosses a row end, and the rows with several outer combinations are pass 3's).
  bool sg_queued[TILE_PER];
#if BLOCK_EDGES
  // The edge chunks written from their blocks after the copies (edge_chunk_from_blocks; v holds the
  // first block, eb the second, er the offset, eci the chunk's column).
  uvec4 eb[TILE_PER];
  uint er[TILE_PER], eci[TILE_PER];
  bool edge[TILE_PER];
#endif
  [[unroll]] for (uint h = 0u; h < TILE_PER; ++h) {
    const uint q = first + lid + h * ROW_LANES;
#if BLOCK_EDGES
    edge[h] = false;
    eb[h] = uvec4(0u);
    er[h] = 0u;
    eci[h] = 0u;
#endif
    plain[h] = false;
    v[h] = uvec4(0u);
    sg_queued[h] = false;
    if (q < total) {
      const uint e0 = q * CHUNK;
      const uint row = div_in(e0, inner);
      const uint ci0 = e0 - row * n;
      const uint terms = in_one_row(e0, ci0, n) ? tile_terms[row - r0] : 0u;  // 0: across a row end
      if (SINGLE_ROWS && tile_terms[row - r0] > 1u) {
        // pass 3's
      } else if (is_copy(terms, ci0)) {
        v[h] = load16((tile_first[row - r0] + ci0 + left_pad(inner)) * BYTES);
        plain[h] = true;
#if BLOCK_EDGES
      } else if (terms == 1u && edge_from_blocks(((tile_first[row - r0] + ci0 + left_pad(inner)) * BYTES) & 15u)) {
        const uint b0 = (tile_first[row - r0] + ci0 + left_pad(inner)) * BYTES;
        v[h] = src4[b0 >> 4];
        eb[h] = src4[(b0 >> 4) + 1u];
        er[h] = b0 & 15u;
        eci[h] = ci0;
        edge[h] = true;
#endif
      } else if (terms == 1u) {
        if (SG_QUEUE)
          sg_queued[h] = true;
        else
          tile_queue[atomicAdd(tile_count[0], 1u)] = q;
      } else if (!SG_QUEUE) {
        tile_queue[TILE_QUEUE - 1u - atomicAdd(tile_count[1], 1u)] = q;
      }
    }
  }
  [[unroll]] for (uint h = 0u; h < TILE_PER; ++h)
    if (plain[h]) grad_in4[first + lid + h * ROW_LANES] = v[h];
#if BLOCK_EDGES
  [[unroll]] for (uint h = 0u; h < TILE_PER; ++h)
    if (edge[h]) grad_in4[first + lid + h * ROW_LANES] = edge_chunk_from_blocks(v[h], eb[h], er[h], eci[h]);
#endif
#if DTYPE == 0 && !PORTABLE
  if (SG_QUEUE) {
    // REGION 8, the subgroup's own queue (its single-row sums; the rows with several outer
    // combinations are pass 3's): each invocation takes the queued chunks rank, rank + lanes, ...;
    // a chunk's owner comes from the ballots and its index by a shuffle (every invocation of the
    // subgroup runs the same rounds).
    Ballots bs = no_ballots();
    [[unroll]] for (uint h = 0u; h < TILE_PER; ++h) add_ballot(bs, h, sg_queued[h]);
    const uint lanes = active_lanes();
    const uint rank = active_rank();
    for (uint base = 0u; base < bs.total; base += lanes) {
      const uint i = base + rank;
      uint h;
      const uint q = first + queued_owner(bs, i, bs.total, 0u, lid, h) + h * ROW_LANES;
      if (i < bs.total) {
        const uint e0 = q * CHUNK;
        const uint row = div_in(e0, inner);
        single_row_chunk(q, tile_first[row - r0], e0 - row * n);
      }
    }
    return;
  }
#endif
  barrier();
  const uint front = tile_count[0];
  const uint queued = front + tile_count[1];
  for (uint i = lid; i < queued; i += ROW_LANES) {
    if (i < front) {
      const uint q = tile_queue[i];
      const uint e0 = q * CHUNK;
      const uint row = div_in(e0, inner);
      single_row_chunk(q, tile_first[row - r0], e0 - row * n);
    } else if (!SINGLE_ROWS) {  // REGION 7 queues nothing at its back: whole-chunk rows, multi rows to pass 3
      write_chunk(tile_queue[TILE_QUEUE - 1u - (i - front)], false);
    }
  }
}

// The edge passes' slot s of grad_in row r: its chunk k, if it has one. Only chunks that reach the
// row's ends can need sums: those touching the elements fed by the left pad (reflect 0..left,
// replicate 0) or by the right pad (reflect n-1-right..n-1, replicate n-1). Elements 0 and n-1 are
// in, so a chunk that runs into the next row is too.
bool edge_chunk(uint r, uint s, out uint k) {
  const uint a = RANK - 1u;
  const uint n = in_dim(a);
  const uint base = r * n;
  const uint k0 = (base + CHUNK - 1u) / CHUNK;         // first chunk that starts in the row
  const uint k_end = (base + n + CHUNK - 1u) / CHUNK;  // one past the last
  const uint left = left_pad(a);
  const uint right = out_dim(a) - n - left;
#if MODE == 1
  const uint lo_last = base + left;
  const uint hi_first = base + n - 1u - right;
#else
  const uint lo_last = base;
  const uint hi_first = base + n - 1u;
#endif
  const uint lo_end = min(lo_last / CHUNK + 1u, k_end);          // lo chunks: [k0, lo_end)
  const uint hi_begin = max(hi_first / CHUNK, max(lo_end, k0));  // hi chunks: [hi_begin, k_end)
  const uint n_lo = lo_end > k0 ? lo_end - k0 : 0u;
  k = s < n_lo ? k0 + s : hi_begin + (s - n_lo);
  return k < k_end;
}

// The copy pass (REGION 1): four chunks 32 apart per invocation, so that each store of a warp is
// one contiguous run, all loads before the first store, the outer axes looked up once per row;
// only the copy chunks (is_copy), which the edge and multi-row passes skip.
void copy_four(uint g) {
  const uint inner = RANK - 1u;
  const uint n = in_dim(inner);
  const uint left = left_pad(inner);
  const uint total = (N_IN + CHUNK - 1u) / CHUNK;
  const uint q0 = (g / 32u) * 128u + (g % 32u);
  uint looked_up = 0xFFFFFFFFu;  // the row whose outer axes terms / first_off hold
  uint terms = 0u, first_off = 0u;
  uvec4 v[4];
  bool w[4];
  [[unroll]] for (uint k = 0u; k < 4u; ++k) {
    const uint q = q0 + 32u * k;
    const uint e0 = q * CHUNK;
    const uint row = div_in(e0, inner);
    const uint ci0 = e0 - row * n;
    w[k] = false;
    v[k] = uvec4(0u);
    if (q < total && in_one_row(e0, ci0, n)) {
      if (row != looked_up) {
        looked_up = row;
        terms = row_outer(row, first_off);
      }
      if (is_copy(terms, ci0)) {
        v[k] = load16((first_off + ci0 + left) * BYTES);
        w[k] = true;
      }
    }
  }
  [[unroll]] for (uint k = 0u; k < 4u; ++k)
    if (w[k]) grad_in4[q0 + 32u * k] = v[k];
}

// The multi-row pass (REGION 3): one invocation per chunk of the rows with several outer
// combinations (a few in a hundred where the wrapper splits the passes, about one in eight beside
// REGION 7 on the benchmarks' rank-5 shape). Those rows are numbered directly (multi_row), so every
// invocation has one chunk, however the rows cluster.
//
// On an outer axis, the coordinates with several contributors form at most two intervals (reflect:
// 1..left and n-1-right..n-2; replicate: 0 and n-1), here made disjoint and sorted: [s1, s1 + l1)
// before [s2, s2 + l2), an empty one starting at n.
struct MultiCoords {
  uint s1, l1, s2, l2;
};

MultiCoords multi_coords(uint a) {
  const uint n = in_dim(a);
  const uint left = left_pad(a);
  const uint right = out_dim(a) - n - left;
  MultiCoords m;
#if MODE == 1
  m.s1 = 1u;
  m.l1 = left;  // left <= n - 1
  m.s2 = n - 1u - right;
  m.l2 = right;  // right <= n - 1
#else
  m.s1 = 0u;
  m.l1 = left > 0u ? 1u : 0u;
  m.s2 = n - 1u;
  m.l2 = right > 0u ? 1u : 0u;
#endif
  if (m.l1 == 0u) {
    m.s1 = m.s2;
    m.l1 = m.l2;
    m.l2 = 0u;
  }
  if (m.l2 > 0u && m.s2 <= m.s1 + m.l1) {  // overlapping or touching: one interval
    const uint e = max(m.s1 + m.l1, m.s2 + m.l2);
    m.s1 = min(m.s1, m.s2);
    m.l1 = e - m.s1;
    m.l2 = 0u;
  }
  if (m.l1 == 0u) m.s1 = n;
  if (m.l2 == 0u) m.s2 = n;
  return m;
}

// The k-th coordinate with one contributor on an axis whose others are `m`.
uint single_coord(MultiCoords m, uint k) {
  uint c = k;
  if (c >= m.s1) c += m.l1;
  if (c >= m.s2) c += m.l2;
  return c;
}

// Grad_in row j of those with several outer combinations, grouped by their outermost axis a with
// several contributors (axes before a single, a's coordinate among its multi ones, the axes after
// it anything), ascending within each group. j is below their number (the wrapper counts them).
uint multi_row(uint j) {
  const uint inner = RANK - 1u;
  uint singles_before = 1u;  // rows' combinations of single coordinates on the axes before a
  for (uint a = 0u; a < inner; ++a) {
    const MultiCoords m = multi_coords(a);
    const uint multi = m.l1 + m.l2;
    uint after = 1u;  // grad_in rows per coordinate of axis a
    for (uint b = a + 1u; b < inner; ++b) after *= in_dim(b);
    const uint count = singles_before * multi * after;
    if (j < count) {
      uint q = j / after;
      uint row = j - q * after;  // the axes after a, row-major as in grad_in
      const uint k = q % multi;
      q /= multi;
      row += (k < m.l1 ? m.s1 + k : m.s2 + (k - m.l1)) * after;
      uint stride = after * in_dim(a);
      for (uint b = a; b > 0u; --b) {
        const MultiCoords mb = multi_coords(b - 1u);
        const uint singles = in_dim(b - 1u) - mb.l1 - mb.l2;
        const uint kb = q % singles;
        q /= singles;
        row += single_coord(mb, kb) * stride;
        stride *= in_dim(b - 1u);
      }
      return row;
    }
    j -= count;
    singles_before *= in_dim(a) - multi;
  }
  return 0u;  // not reached: the wrapper dispatches S invocations per such row
}

// Invocation g writes chunk g % S of multi row g / S (S: chunks that can start in a row).
void multi_row_pass(uint g) {
  const uint n = in_dim(RANK - 1u);
  const uint S = (n + CHUNK - 1u) / CHUNK;
  const uint j = g / S;
  const uint r = multi_row(j);
  const uint s = g - j * S;
  if (n % CHUNK == 0u) {
    // Rows of whole chunks: chunk s of row r lies in the row, and the row has several outer
    // combinations, so it goes straight to multi_row_chunk, without write_chunk's division and its
    // other paths (the single-row sums, the gather across a row end). On the H200 (rank5, built for
    // the geometry, three rounds, docs/data/h200_ab_det_lean_multi_row.md) the pass's binary went
    // from 14-121 KB to 6-12 KB, with no local memory and 26-39 registers (30-40 before); with
    // replicate's ends in fixed slots (multi_row_chunk) it took reflect f16/bf16 0.97x the time,
    // replicate f16 0.95x, bf16 0.96x, f32 0.98x, the other rows 0.99-1.00x.
    Contributors oax[7];
    uint ostride[7];
    uint terms, first_off;
    outer_axes(r, oax, ostride, terms, first_off);
    multi_row_chunk(r * S + s, s * CHUNK, oax, ostride, terms);
    return;
  }
  const uint k = (r * n + CHUNK - 1u) / CHUNK + s;
  if (k < ((r + 1u) * n + CHUNK - 1u) / CHUNK) write_chunk(k, true);
}

// Pass 9: pass 6's chunks, one workgroup each, for few rows, where each invocation of pass 6 runs
// a long chain alone (audio, 64 rows with pads of 512: the edge pass alone took about 40 µs on the
// H200, whatever the element width, for 513 terms per sum: its loads go out a few at a time). Here
// the workgroup loads a long run's terms, RUN_BLOCK at a time, into shared memory (coalesced, all
// in flight together) and invocation 0 adds them in order: the same order and the same roundings as
// the other passes. Elements without a long run are summed (or copied) by invocation 0 alone.
const uint RUN_BLOCK = REGION == 9u ? 1024u : 1u;
shared ACC run_terms[RUN_BLOCK];
#define LONG_SUM 32u  // innermost contributors from which the workgroup loads the terms

// acc plus grad_out[p .. p + count - 1], in order (valid in invocation 0). Called in uniform
// control flow: every invocation of the workgroup, with the same p and count.
ACC workgroup_run(ACC acc, uint p, uint count) {
  const uint lid = gl_LocalInvocationID.x;
  precise ACC a = acc;
  for (uint base = 0u; base < count; base += RUN_BLOCK) {
    const uint m = min(RUN_BLOCK, count - base);
    for (uint j = lid; j < m; j += ROW_LANES) run_terms[j] = load(p + base + j);
    barrier();
    if (lid == 0u)
      for (uint j = 0u; j < m; ++j) a += run_terms[j];
    barrier();
  }
  return a;
}

// Edge chunk k, by the workgroup: each element as gather() writes it, the long innermost runs of
// rows with one outer combination loaded by the whole workgroup. In uniform control flow.
void workgroup_edge_chunk(uint k) {
  const uint inner = RANK - 1u;
  const uint n = in_dim(inner);
  BITS v[CHUNK];
  for (uint j = 0u; j < CHUNK; ++j) {
    const uint e = k * CHUNK + j;
    BITS bits = BITS(0u);
    if (e < N_IN) {
      const uint row = div_in(e, inner);
      const uint ci = e - row * n;
      uint first_off;
      const uint terms = row_outer(row, first_off);
      const Contributors c = contributors(inner, ci);
      if (terms == 1u && c.count >= LONG_SUM) {
        bits = to_bits(workgroup_run(NEG_ZERO, first_off + c.p0, c.count));
      } else if (gl_LocalInvocationID.x == 0u) {
        bits = gather(e);
      }
    }
    v[j] = bits;
  }
  if (gl_LocalInvocationID.x == 0u) store_chunk(k, v);
}

// Passes 10 and 11: the copy and edge passes in one dispatch, for rows of whole chunks, their
// workgroups interleaved so that the edge chunks of a block of rows are written while the copy
// chunks of the same rows are: the edge chunks' grad_out sectors then come from the cache, not from
// memory reads scattered over the whole tensor (on the H200 those made the separate edge pass take
// 18-19% of image f16's time). Workgroup w is workgroup j = w % (K + 1) of block b = w / (K + 1)
// (K = pc.per_block): j < K is copy workgroup b * K + j (pass 1's four chunks per invocation), j = K
// writes the edge chunks of the rows that start in the block's copy chunks, `slots` invocations
// per row. The rows with several outer combinations are pass 3's. The wrapper keeps
// b * K * 1024 * CHUNK + n under 2^32.
void interleaved_pass(uint w) {
  const uint lid = gl_LocalInvocationID.x;
  const uint K = pc.per_block;
  const uint b = w / (K + 1u);
  const uint j = w - b * (K + 1u);
  const uint total = (N_IN + CHUNK - 1u) / CHUNK;
  if (j < K) {
    const uint c = b * K + j;  // copy workgroup: 1024 chunks
    if (c * 1024u < total) copy_four(c * ROW_LANES + lid);
    return;
  }
  const uint inner = RANK - 1u;
  const uint n = in_dim(inner);
  const uint block = K * 1024u * CHUNK;  // elements of the block's copy chunks
  const uint e_lo = min(b * block, N_IN);
  const uint e_hi = min(e_lo + block, N_IN);
  const uint r_lo = div_in(e_lo + n - 1u, inner);  // first row starting at e_lo or after
  const uint r_hi = div_in(e_hi + n - 1u, inner);
  const uint count = (r_hi - r_lo) * pc.slots;
  for (uint i = lid; i < count; i += ROW_LANES) {
    const uint q = i / pc.slots;
    const uint r = r_lo + q;
    uint first_off;
    uint k;
    if (row_outer(r, first_off) == 1u && edge_chunk(r, i - q * pc.slots, k)) {
      const uint ci0 = k * CHUNK - r * n;
      if (!inner_single(ci0)) {
        if (MODE == 1 && REGION == 10u)
          window_chunk(k, first_off, ci0);
        else
          single_row_chunk(k, first_off, ci0);
      }
    }
  }
}

void main() {
  if (REGION == 10u || REGION == 11u) {
    const uint w = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (w * ROW_LANES < pc.n_invocations) interleaved_pass(w);
    return;
  }
  const uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (REGION == 4u) {  // the row pass: no early return before its barrier
    row_pass(g);
    return;
  }
  if (REGION == 12u) {  // the element pass: its 2-byte builds have a barrier
    element_pass(g);
    return;
  }
  if (IS_TILE) {  // the tile pass: no early return before its barriers
    tile_pass(g);
    return;
  }
  if (g >= pc.n_invocations) return;  // whole workgroups in pass 9 (a multiple of 256 there)
  if (REGION == 9u) {  // workgroup w: slot w % slots of row w / slots; no early return before its barriers but a whole workgroup's
    const uint w = g / ROW_LANES;
    const uint r = w / pc.slots;
    uint k;
    if (row_terms(r) == 1u && edge_chunk(r, w - r * pc.slots, k)) workgroup_edge_chunk(k);
    return;
  }
  if (REGION == 3u) {
    multi_row_pass(g);
    return;
  }
  if (REGION == 1u) {
    copy_four(g);
    return;
  }
  if (REGION != 2u && REGION != 6u) {
    write_chunk(g, false);
    return;
  }
  // Pass 2: slot s of grad_in row r.
  const uint r = g / pc.slots;
  if (row_terms(r) > 1u) return;  // pass 3's
  uint k;
  if (edge_chunk(r, g - r * pc.slots, k)) write_chunk(k, true);
}
