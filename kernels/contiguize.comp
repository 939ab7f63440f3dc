#version 450
// Contiguize: realizes a strided view (any strides, including 0 = broadcast and negative =
// reversed, and a start offset) into a dense row-major buffer, bit for bit. One source for every
// element width (ELEM_BYTES 1, 2, 4, 8).
// shape_buf = [shape, strides, offset]: `rank` u32 dims, `rank` strides in elements (two's
// complement i32 bits), then the start offset in elements. The wrapper has checked that every
// element the view reaches lies inside `src` (so index arithmetic may wrap mod 2^32 on the way and
// still land on the right element) and has merged axes that are dense relative to each other.
// Each invocation writes one 16-byte chunk of `out`: CHUNK_ELEMS consecutive destination elements,
// stepping the source index incrementally (an add per element, a carry when a row ends).
#include "common.glsl"

layout(local_size_x = 256) in;

#if ELEM_BYTES == 8
layout(set = 0, binding = 0, std430) readonly buffer Src { uvec2 src[]; };
#else
layout(set = 0, binding = 0, std430) readonly buffer Src { uint src[]; };
#endif
// The same source seen as 16-byte chunks, for rows read with stride 1.
layout(set = 0, binding = 0, std430) readonly buffer Src4 { uvec4 src4[]; };
#include "window.glsl"
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

layout(push_constant) uniform Params {
  uint n_chunks;  // ceil(n * ELEM_BYTES / 16): the dispatch bound
  uint n;         // elements of the view (and of out)
  uint rank;      // 1..8
} pc;

uint dim(uint a) { return shape_buf[a]; }
uint stride(uint a) { return shape_buf[pc.rank + a]; }  // i32 bits; uint arithmetic wraps alike
uint view_offset() { return shape_buf[2u * pc.rank]; }

ELEM load_elem(uint idx) {
#if ELEM_BYTES == 1
  return (src[idx >> 2] >> ((idx & 3u) * 8u)) & 0xFFu;
#elif ELEM_BYTES == 2
  return (src[idx >> 1] >> ((idx & 1u) * 16u)) & 0xFFFFu;
#else
  return src[idx];
#endif
}


void main() {
  const uint chunk = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (chunk >= pc.n_chunks) return;
  const uint inner = pc.rank - 1u;
  const uint first = chunk * uint(CHUNK_ELEMS);
  const uint row = dim(inner);
  const uint inner_stride = stride(inner);

  // The first element's coordinates and source index (one division per axis, once per chunk).
  uint c = first % row;
  uint rem = first / row;
  uint coord[7];
  uint s = view_offset() + c * inner_stride;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    coord[a] = 0u;
    if (uint(a) < inner) {
      const uint d = dim(uint(a));
      coord[a] = rem % d;
      rem /= d;
      s += coord[a] * stride(uint(a));
    }
  }

  // Fast path: the chunk lies in one row read with stride 1 (a slice, an offset view, the inner
  // rows of a permutation that keeps the last axis): one or two 16-byte loads and a funnel shift.
  if (inner_stride == 1u && c + uint(CHUNK_ELEMS) <= row) {
    dst[chunk] = load16(s * uint(ELEM_BYTES));
    return;
  }

  uvec4 out_chunk = uvec4(0u);
  [[unroll]] for (uint k = 0u; k < uint(CHUNK_ELEMS); ++k) {
    if (first + k < pc.n) {
      put_elem(out_chunk, k, load_elem(s));
      // Step to the next element; at a row end, carry into the outer axes.
      s += inner_stride;
      if (++c == row) {
        c = 0u;
        s -= row * inner_stride;
        bool carry = true;
        [[unroll]] for (int a = 6; a >= 0; --a) {
          if (carry && uint(a) < inner) {
            s += stride(uint(a));
            coord[a] += 1u;
            carry = coord[a] == dim(uint(a));
            if (carry) {
              coord[a] = 0u;
              s -= dim(uint(a)) * stride(uint(a));
            }
          }
        }
      }
    }
  }
  dst[chunk] = out_chunk;
}
