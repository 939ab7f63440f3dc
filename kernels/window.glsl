// 16-byte windows of a source bound as `src4` (uvec4[]), for kernels that move bytes: unaligned
// loads from aligned ones plus funnel shifts, byte shifts and byte masks. Include after declaring
// src4.
#ifndef FVK_WINDOW_GLSL
#define FVK_WINDOW_GLSL

// 16 bytes of the source starting at byte `b0`, from one or two aligned 16-byte loads and a funnel
// shift. The caller guarantees all 16 bytes are data (so the second load is inside the buffer).
uvec4 load16(uint b0) {
  const uint base = b0 >> 4;
  const uint r = b0 & 15u;
  uvec4 a = src4[base];
  if (r == 0u) return a;
  uvec4 b = src4[base + 1u];
  if (r >= 8u) { a = uvec4(a.zw, b.xy); b = uvec4(b.zw, 0u, 0u); }
  if ((r & 4u) != 0u) { a = uvec4(a.yzw, b.x); b = uvec4(b.yzw, 0u); }
  const uint sh = (r & 3u) * 8u;
  if (sh != 0u) a = (a >> sh) | (uvec4(a.yzw, b.x) << (32u - sh));
  return a;
}

// Like load16, but the 16 bytes may run past the data: the second load is skipped past the end of
// the binding (the bytes it would give are masked off by the caller).
uvec4 load16_masked(uint b0) {
  const uint base = b0 >> 4;
  const uint r = b0 & 15u;
  uvec4 a = src4[base];
  if (r == 0u) return a;
  uvec4 b = base + 1u < uint(src4.length()) ? src4[base + 1u] : uvec4(0u);
  if (r >= 8u) { a = uvec4(a.zw, b.xy); b = uvec4(b.zw, 0u, 0u); }
  if ((r & 4u) != 0u) { a = uvec4(a.yzw, b.x); b = uvec4(b.yzw, 0u); }
  const uint sh = (r & 3u) * 8u;
  if (sh != 0u) a = (a >> sh) | (uvec4(a.yzw, b.x) << (32u - sh));
  return a;
}

// Moves every byte of v up by n (0..15) places; zeros come in at the bottom.
uvec4 shift_up(uvec4 v, uint n) {
  if (n >= 8u) v = uvec4(0u, 0u, v.xy);
  if ((n & 4u) != 0u) v = uvec4(0u, v.xyz);
  const uint sh = (n & 3u) * 8u;
  if (sh != 0u) v = (v << sh) | (uvec4(0u, v.xyz) >> (32u - sh));
  return v;
}

// All-ones in bytes [lo, hi) of a 16-byte chunk.
uvec4 byte_mask(uint lo, uint hi) {
  uvec4 m;
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
    const uint a = clamp(lo, 4u * w, 4u * w + 4u) - 4u * w;
    const uint b = clamp(hi, 4u * w, 4u * w + 4u) - 4u * w;
    const uint upto_b = b >= 4u ? 0xFFFFFFFFu : (1u << (8u * b)) - 1u;
    const uint upto_a = a >= 4u ? 0xFFFFFFFFu : (1u << (8u * a)) - 1u;
    m[w] = upto_b & ~upto_a;
  }
  return m;
}

#endif
