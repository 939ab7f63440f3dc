// Shared by the byte-mover kernels: element access on u32-word-addressed buffers.
// ELEM_BYTES (1, 2, 4 or 8) comes from the build; an element is stored as a uint (low bits) for
// widths up to 4, and as a uvec2 (lo, hi) for 8.
#ifndef FVK_COMMON_GLSL
#define FVK_COMMON_GLSL

#extension GL_EXT_control_flow_attributes : require

#if ELEM_BYTES == 8
#define ELEM uvec2
#define ELEM_ZERO uvec2(0u)
#else
#define ELEM uint
#define ELEM_ZERO 0u
#endif

// Elements per 16-byte chunk: every invocation owns whole 16-byte chunks of its output, so no two
// invocations ever write parts of one 32-bit word.
#define CHUNK_ELEMS (16 / ELEM_BYTES)

// Places element k (0 <= k < CHUNK_ELEMS, a compile-time constant after unrolling) into a chunk.
void put_elem(inout uvec4 chunk, uint k, ELEM v) {
#if ELEM_BYTES == 1
  chunk[k / 4u] |= (v & 0xFFu) << ((k % 4u) * 8u);
#elif ELEM_BYTES == 2
  chunk[k / 2u] |= (v & 0xFFFFu) << ((k % 2u) * 16u);
#elif ELEM_BYTES == 4
  chunk[k] = v;
#else
  chunk[2u * k] = v.x;
  chunk[2u * k + 1u] = v.y;
#endif
}

#endif
