// 16-byte windows of a source bound as `src4` (uvec4[]), for kernels that move bytes: unaligned
// loads from aligned ones plus a funnel shift. Include after declaring src4.
#ifndef FVK_WINDOW_GLSL
#define FVK_WINDOW_GLSL

// Bytes r .. r + 15 (r < 16) of the 32-byte window whose first 16 bytes are `a` and last `b`: a
// funnel shift.
uvec4 funnel16(uvec4 a, uvec4 b, uint r) {
  if (r >= 8u) { a = uvec4(a.zw, b.xy); b = uvec4(b.zw, 0u, 0u); }
  if ((r & 4u) != 0u) { a = uvec4(a.yzw, b.x); b = uvec4(b.yzw, 0u); }
  const uint sh = (r & 3u) * 8u;
  if (sh != 0u) a = (a >> sh) | (uvec4(a.yzw, b.x) << (32u - sh));
  return a;
}

// 16 bytes of the source starting at byte `b0`, from one or two aligned 16-byte loads and a funnel
// shift. The caller guarantees all 16 bytes are data (so the second load is inside the buffer).
uvec4 load16(uint b0) {
  const uint base = b0 >> 4;
  const uint r = b0 & 15u;
  const uvec4 a = src4[base];
  if (r == 0u) return a;
  return funnel16(a, src4[base + 1u], r);
}

#endif
