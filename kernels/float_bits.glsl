// Exact widening and round-to-nearest-even narrowing between f32 and the 16-bit float formats, in
// integer arithmetic so the result does not depend on the driver's conversion rounding.
#ifndef FVK_FLOAT_BITS_GLSL
#define FVK_FLOAT_BITS_GLSL

float f16_to_f32(uint h) { return unpackHalf2x16(h & 0xFFFFu).x; }
float bf16_to_f32(uint b) { return uintBitsToFloat((b & 0xFFFFu) << 16); }

// Without branches: both roundings are computed and the result selected, so that the unrolled
// callers (a chunk's CHUNK sums) do not run one divergent branch chain per element. Checked against
// the branching form it replaced on all 2^32 inputs.
uint f32_to_f16(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16) & 0x8000u;
  const uint ax = x & 0x7FFFFFFFu;
  const uint e = ax >> 23;
  // Normal f16: re-bias the exponent by -112 (0xC8000000 modulo 2^32) and round to nearest even at
  // bit 13; a carry out of the mantissa steps the exponent, up to infinity.
  const uint normal = (ax + 0xC8000FFFu + ((ax >> 13) & 1u)) >> 13;
  // Subnormal f16 or zero (e <= 112): the 24-bit significand shifted right by 126 - e (14 or more;
  // 31 at most, which leaves 0 and a remainder under half), rounded to nearest even. Exponents
  // above 112 take the normal path; they are clamped so that every shift count stays under 32.
  const uint m = (ax & 0x7FFFFFu) | 0x800000u;
  const uint s = min(126u - min(e, 112u), 31u);
  const uint r = m >> s;
  const uint rem = m & ((1u << s) - 1u);
  const uint half_ulp = 1u << (s - 1u);
  const uint sub = r + ((rem > half_ulp || (rem == half_ulp && (r & 1u) != 0u)) ? 1u : 0u);
  uint h = e <= 112u ? sub : normal;
  h = ax >= 0x47800000u ? 0x7C00u : h;  // 2^16 and more, and infinity: infinity
  h = ax > 0x7F800000u ? 0x7E00u : h;   // NaN: the quiet NaN
  return sign | h;
}

uint f32_to_bf16(float f) {
  const uint x = floatBitsToUint(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x >> 16) | 0x40u;  // quiet NaN
  return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}

#endif
