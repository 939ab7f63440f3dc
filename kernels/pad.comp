#version 450
// Index-map gather for the pad family, one source for every mode and byte width:
//   MODE 0 constant  (out = pad(in), pad slots get the fill bits)
//   MODE 1 reflect   (out = pad(in), mirror about the edge element, edge not repeated)
//   MODE 2 replicate (out = pad(in), clamp to the edge element)
//   MODE 3 crop      (grad_in = grad_out[in_coord + left]: the constant-pad backward)
// shape_buf = [in_shape, out_shape, left_pad], `rank` entries each. The wrapper guarantees the pad
// preconditions (out = in + l + r, reflect pads <= dim - 1, no empty dim where data is needed).
// Each invocation writes one 16-byte chunk of the destination: CHUNK_ELEMS consecutive elements,
// walking coordinates incrementally so the per-element cost is a compare and an add.
#include "common.glsl"

layout(local_size_x = 256) in;

#if ELEM_BYTES == 8
layout(set = 0, binding = 0, std430) readonly buffer Src { uvec2 src[]; };
#else
layout(set = 0, binding = 0, std430) readonly buffer Src { uint src[]; };
#endif
// The same source seen as 16-byte chunks, for the fast path.
layout(set = 0, binding = 0, std430) readonly buffer Src4 { uvec4 src4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };
#include "window.glsl"
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

layout(push_constant) uniform Params {
  uint n_chunks;  // invocations, the dispatch bound: 32 per 128 chunks of 16 bytes
  uint n_dst;     // elements of the destination
  uint rank;
  uint fill_lo;   // fill bit pattern (low word; MODE 0 only)
  uint fill_hi;   // high word for 8-byte elements
} pc;

uint in_dim(uint a) { return shape_buf[a]; }
uint out_dim(uint a) { return shape_buf[pc.rank + a]; }
uint left_pad(uint a) { return shape_buf[2u * pc.rank + a]; }

#if MODE == 3
uint dst_dim(uint a) { return in_dim(a); }
uint src_dim(uint a) { return out_dim(a); }
#else
uint dst_dim(uint a) { return out_dim(a); }
uint src_dim(uint a) { return in_dim(a); }
#endif

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






// Lanes [k0, k1) of a chunk that lie in one row: lane k has innermost coordinate c0 + (k - k0) and
// the row's outer axes map to source offset `off` (valid when `ok`). The lanes that read the row's
// data in order come from one window load; pad lanes are filled or read one by one.
uvec4 row_part(uint k0, uint k1, uint c0, uint off, bool ok, uint inner, uint row_src) {
  uvec4 r = uvec4(0u);
#if MODE == 3
  const uint ki0 = k0, ki1 = k1;
  const uint s0 = off + c0 + left_pad(inner);  // source of lane k0
#else
  const int left = int(left_pad(inner));
  const int lo = int(k0) + left - int(c0);
  const int hi = lo + int(row_src);
  uint ki0 = uint(clamp(lo, int(k0), int(k1)));
  uint ki1 = uint(clamp(hi, int(k0), int(k1)));
  if (!ok) ki1 = ki0;  // a constant pad's outer pad row: no data
  const uint s0 = off + c0 + (ki0 - k0) - uint(left);  // source of lane ki0
#endif
  if (ki0 < ki1) {
    const uvec4 v = shift_up(load16_masked(s0 * uint(ELEM_BYTES)), ki0 * uint(ELEM_BYTES));
    r = v & byte_mask(ki0 * uint(ELEM_BYTES), ki1 * uint(ELEM_BYTES));
  }
#if MODE != 3
  [[unroll]] for (uint k = 0u; k < uint(CHUNK_ELEMS); ++k) {
    if (k >= k0 && k < k1 && (k < ki0 || k >= ki1)) {
#if MODE == 0
#if ELEM_BYTES == 8
      const ELEM v = uvec2(pc.fill_lo, pc.fill_hi);
#else
      const ELEM v = pc.fill_lo;
#endif
#else
      uint s;
      map_coord(inner, c0 + (k - k0), s);
      const ELEM v = load_elem(off + s);
#endif
      put_elem(r, k, v);
    }
  }
#endif
  return r;
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

// Where the walk stands at destination chunk `chunk`: c along the innermost axis, coord[] on the
// outer axes, and the outer axes' source offset and validity.
void locate(uint chunk, uint inner, uint row_dst, uint row_src, out uint c, out uint coord[7], out uint outer_off,
            out bool outer_ok) {
  const uint first = chunk * uint(CHUNK_ELEMS);
  c = first % row_dst;
  uint rem = first / row_dst;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    coord[a] = 0u;
    if (uint(a) < inner) {
      const uint d = dst_dim(uint(a));
      coord[a] = rem % d;
      rem /= d;
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

  // The chunk touches a pad or a row end. With rows of at least a chunk, it spans at most two rows:
  // each part is a window load plus its pad lanes, so a warp holding a few such chunks is not held
  // up by element-by-element work.
  const uint lanes = min(uint(CHUNK_ELEMS), pc.n_dst - first);
  if (row_dst >= uint(CHUNK_ELEMS)) {
    const uint m = min(lanes, row_dst - c);
    uvec4 out_chunk = row_part(0u, m, c, outer_off, outer_ok, inner, row_src);
    if (m < lanes) {
      next_row(coord, outer_off, outer_ok, inner, row_src);
      out_chunk |= row_part(m, lanes, 0u, outer_off, outer_ok, inner, row_src);
    }
    dst[chunk] = out_chunk;
    return;
  }

  // Rows shorter than a chunk: element by element.
  uvec4 out_chunk = uvec4(0u);
  [[unroll]] for (uint k = 0u; k < uint(CHUNK_ELEMS); ++k) {
    if (k < lanes) {
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
      if (++c == row_dst) {
        c = 0u;
        next_row(coord, outer_off, outer_ok, inner, row_src);
      }
    }
  }
  dst[chunk] = out_chunk;
}

// Each invocation writes CHUNKS_PER_INVOCATION chunks, 32 chunks apart (so every store of a warp is
// one contiguous run): the index math of locate() is done once, and the later chunks step along the
// row by addition, dividing again only where a row end is crossed.
#define CHUNKS_PER_INVOCATION 4u

void main() {
  const uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (g >= pc.n_chunks) return;  // invocations: 32 per block of 32 * CHUNKS_PER_INVOCATION chunks
  const uint total = (pc.n_dst * uint(ELEM_BYTES) + 15u) / 16u;
  const uint inner = pc.rank - 1u;
  const uint row_dst = dst_dim(inner);
  const uint row_src = src_dim(inner);
  const uint step = 32u * uint(CHUNK_ELEMS);  // elements between this invocation's chunks
  uint q = (g / 32u) * (32u * CHUNKS_PER_INVOCATION) + (g % 32u);
  if (q >= total) return;
  uint c, outer_off;
  uint coord[7];
  bool outer_ok;
  locate(q, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
  [[unroll]] for (uint k = 0u; k < CHUNKS_PER_INVOCATION; ++k) {
    if (k > 0u) {
      q += 32u;
      if (q >= total) return;
      c += step;
      if (c >= row_dst) {
        if (step <= row_dst) {  // crossed exactly one row end
          c -= row_dst;
          next_row(coord, outer_off, outer_ok, inner, row_src);
        } else {
          locate(q, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
        }
      }
    }
    write_chunk(q, inner, row_dst, row_src, c, coord, outer_off, outer_ok);
  }
}
