// Exact widening and round-to-nearest-even narrowing between f32 and the 16-bit float formats, in
// integer arithmetic so the result does not depend on the driver's conversion rounding.
#ifndef FVK_FLOAT_BITS_GLSL
#define FVK_FLOAT_BITS_GLSL

float f16_to_f32(uint h) { return unpackHalf2x16(h & 0xFFFFu).x; }
float bf16_to_f32(uint b) { return uintBitsToFloat((b & 0xFFFFu) << 16); }

uint f32_to_f16(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16) & 0x8000u;
  uint m = x & 0x7FFFFFu;
  const uint e = (x >> 23) & 0xFFu;
  if (e == 0xFFu) return sign | 0x7C00u | (m != 0u ? 0x200u : 0u);
  const int exp = int(e) - 112;  // re-biased for f16
  if (exp >= 31) return sign | 0x7C00u;
  if (exp <= 0) {  // f16 subnormal or zero: value = m' * 2^-24 with m' = M >> (14 - exp)
    if (exp < -10) return sign;
    m |= 0x800000u;
    const uint shift = uint(14 - exp);
    uint r = m >> shift;
    const uint rem = m & ((1u << shift) - 1u);
    const uint half_ulp = 1u << (shift - 1u);
    if (rem > half_ulp || (rem == half_ulp && (r & 1u) != 0u)) r += 1u;
    return sign | r;
  }
  uint r = (uint(exp) << 10) | (m >> 13);
  const uint rem = m & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u) != 0u)) r += 1u;  // a carry may reach infinity: correct
  return sign | r;
}

uint f32_to_bf16(float f) {
  const uint x = floatBitsToUint(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x >> 16) | 0x40u;  // quiet NaN
  return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}

#endif
