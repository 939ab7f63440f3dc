// Exact widening and round-to-nearest-even narrowing between f32 and the 16-bit float formats, in
// integer arithmetic and (f16's subnormal range) one f32 add, so the result does not depend on the
// driver's conversion rounding. The add relies on nothing the sums do not: an f32 add correctly
// rounded to nearest even, on which every f32 sum's match with the CPU reference rests already.
#ifndef FVK_FLOAT_BITS_GLSL
#define FVK_FLOAT_BITS_GLSL

float f16_to_f32(uint h) { return unpackHalf2x16(h & 0xFFFFu).x; }
float bf16_to_f32(uint b) { return uintBitsToFloat((b & 0xFFFFu) << 16); }

// Without branches: both roundings are computed and the result selected, so that the unrolled
// callers (a chunk's CHUNK sums) do not run one divergent branch chain per element.
//   Normal f16: re-bias the exponent by -112 (0xC8000000 modulo 2^32) and round to nearest even at
//   bit 13; a carry out of the mantissa steps the exponent, up to infinity.
//   Subnormal f16 or zero (|f| under 2^-14): |f| + 0.5 in f32, whose ulp is 2^-24, the f16
//   subnormals' step, so the float add rounds |f| to nearest even on that grid; the result's low
//   bits are the f16 bits (a carry to 2^-14 gives 0x400, the smallest normal). An f32 subnormal |f|
//   rounds to zero whether the device keeps it or flushes it to zero first. This add replaced about
//   20 integer operations of a shifted-significand rounding (and its exponent); the two forms were
//   checked equal on all 2^32 inputs, with subnormal inputs kept and flushed. On the H100 rank5's
//   deterministic reflect f16 backward took 0.96x the time, the atomic f16 kernels 0.98x
//   (docs/data/h100_ab_f16_rounding.md).
// `precise`: the add must be the f32 add that rounds, not contracted or reassociated.
uint f32_to_f16(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16) & 0x8000u;
  const uint ax = x & 0x7FFFFFFFu;
  const uint normal = (ax + 0xC8000FFFu + ((ax >> 13) & 1u)) >> 13;
  precise const float grid = uintBitsToFloat(ax) + 0.5;
  const uint sub = floatBitsToUint(grid) - 0x3F000000u;
  uint h = ax < 0x38800000u ? sub : normal;  // 0x38800000: 2^-14
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
