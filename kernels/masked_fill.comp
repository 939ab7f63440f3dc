#version 450
// out[i] = mask[i] != 0 ? fill : input[i], for any dtype of ELEM_BYTES. The mask is bool, one byte
// per element, packed four to a u32 word. Each invocation owns one 16-byte chunk of the output and
// reads the matching 16-byte chunk of the input and 16/ELEM_BYTES mask bytes.
#include "common.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
// The mask bytes of one chunk are read in one load: 16 bytes for 1-byte elements, 8 for 2-byte, 4
// for 4-byte, and half a word for 8-byte elements.
#if ELEM_BYTES == 1
layout(set = 0, binding = 1, std430) readonly buffer Mask { uvec4 mask[]; };
#elif ELEM_BYTES == 2
layout(set = 0, binding = 1, std430) readonly buffer Mask { uvec2 mask[]; };
#else
layout(set = 0, binding = 1, std430) readonly buffer Mask { uint mask[]; };
#endif
layout(set = 0, binding = 2, std430) writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Params {
  uint n_chunks;  // ceil(n * ELEM_BYTES / 16)
  uint n;         // elements
  uint fill_lo;
  uint fill_hi;
} pc;

void main() {
  const uint chunk = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (chunk >= pc.n_chunks) return;
  const uint first = chunk * uint(CHUNK_ELEMS);
  const uvec4 v = src[chunk];
#if ELEM_BYTES == 1
  const uvec4 mw = mask[chunk];
#elif ELEM_BYTES == 2
  const uvec4 mw = uvec4(mask[chunk], 0u, 0u);
#elif ELEM_BYTES == 4
  const uvec4 mw = uvec4(mask[chunk], 0u, 0u, 0u);
#else
  const uvec4 mw = uvec4(mask[chunk >> 1] >> ((chunk & 1u) * 16u), 0u, 0u, 0u);
#endif
  uvec4 r = uvec4(0u);
  [[unroll]] for (uint k = 0u; k < uint(CHUNK_ELEMS); ++k) {
    const uint e = first + k;
    if (e < pc.n) {
      const bool m = ((mw[k / 4u] >> ((k % 4u) * 8u)) & 0xFFu) != 0u;
#if ELEM_BYTES == 1
      const uint x = m ? (pc.fill_lo & 0xFFu) : (v[k / 4u] >> ((k % 4u) * 8u)) & 0xFFu;
      r[k / 4u] |= x << ((k % 4u) * 8u);
#elif ELEM_BYTES == 2
      const uint x = m ? (pc.fill_lo & 0xFFFFu) : (v[k / 2u] >> ((k % 2u) * 16u)) & 0xFFFFu;
      r[k / 2u] |= x << ((k % 2u) * 16u);
#elif ELEM_BYTES == 4
      r[k] = m ? pc.fill_lo : v[k];
#else
      r[2u * k] = m ? pc.fill_lo : v[2u * k];
      r[2u * k + 1u] = m ? pc.fill_hi : v[2u * k + 1u];
#endif
    }
  }
  dst[chunk] = r;
}
