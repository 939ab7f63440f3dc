// The geometry as specialization constants, for pad.comp's and the deterministic backward's passes:
// where the wrapper builds a pipeline for one geometry (src/ops/shape_constant.cpp decides where),
// constant 2 is 1, constant 3 the destination's element count, and per axis a (rank <= 7) constant
// 8 + a its input dim, 16 + a its output dim and 24 + a its left pad. The accessors below then read
// them instead of shape_buf, and the driver folds every dim, pad and division by a dim into the code.
// 0 (the default): read at run time. Include after declaring shape_buf ([in_shape, out_shape,
// left_pad, ...], `RANK` entries each) and RANK.
#ifndef FVK_SHAPE_CONSTANTS_GLSL
#define FVK_SHAPE_CONSTANTS_GLSL

layout(constant_id = 2) const uint SHAPE_SC = 0u;
layout(constant_id = 3) const uint N_DST_SC = 0u;
const bool SHAPE_KNOWN = SHAPE_SC != 0u;

layout(constant_id = 8) const uint SC_IN0 = 0u;
layout(constant_id = 9) const uint SC_IN1 = 0u;
layout(constant_id = 10) const uint SC_IN2 = 0u;
layout(constant_id = 11) const uint SC_IN3 = 0u;
layout(constant_id = 12) const uint SC_IN4 = 0u;
layout(constant_id = 13) const uint SC_IN5 = 0u;
layout(constant_id = 14) const uint SC_IN6 = 0u;
layout(constant_id = 16) const uint SC_OUT0 = 0u;
layout(constant_id = 17) const uint SC_OUT1 = 0u;
layout(constant_id = 18) const uint SC_OUT2 = 0u;
layout(constant_id = 19) const uint SC_OUT3 = 0u;
layout(constant_id = 20) const uint SC_OUT4 = 0u;
layout(constant_id = 21) const uint SC_OUT5 = 0u;
layout(constant_id = 22) const uint SC_OUT6 = 0u;
layout(constant_id = 24) const uint SC_LEFT0 = 0u;
layout(constant_id = 25) const uint SC_LEFT1 = 0u;
layout(constant_id = 26) const uint SC_LEFT2 = 0u;
layout(constant_id = 27) const uint SC_LEFT3 = 0u;
layout(constant_id = 28) const uint SC_LEFT4 = 0u;
layout(constant_id = 29) const uint SC_LEFT5 = 0u;
layout(constant_id = 30) const uint SC_LEFT6 = 0u;

// Axis a's constant of the set P (SC_IN, SC_OUT, SC_LEFT); a is a constant at compile time wherever
// the loops over the axes unroll, and the switch then folds to one constant.
#define FVK_AXIS_CONSTANT(P)                                                                          \
  switch (a) {                                                                                         \
    case 0u: return P##0;                                                                              \
    case 1u: return P##1;                                                                              \
    case 2u: return P##2;                                                                              \
    case 3u: return P##3;                                                                              \
    case 4u: return P##4;                                                                              \
    case 5u: return P##5;                                                                              \
    case 6u: return P##6;                                                                              \
  }                                                                                                    \
  return 0u

uint in_dim(uint a) {
  if (!SHAPE_KNOWN) return shape_buf[a];
  FVK_AXIS_CONSTANT(SC_IN);
}
uint out_dim(uint a) {
  if (!SHAPE_KNOWN) return shape_buf[RANK + a];
  FVK_AXIS_CONSTANT(SC_OUT);
}
uint left_pad(uint a) {
  if (!SHAPE_KNOWN) return shape_buf[2u * RANK + a];
  FVK_AXIS_CONSTANT(SC_LEFT);
}

#endif
