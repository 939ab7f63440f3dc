#version 450
// Reflect / replicate pad backward by atomic scatter: one invocation per grad_out element adds it into
// the grad_in slot the forward read it from. grad_in is zero-filled by the wrapper first. The add is a
// compare-and-swap retry loop that never gives up (lock-free: some invocation always succeeds), so no
// contribution is ever dropped; the order of adds depends on the scheduler (nondeterministic).
//   MODE 1 reflect, 2 replicate.  DTYPE 0 f32, 1 f64, 2 f16, 3 bf16.
#extension GL_EXT_control_flow_attributes : require
#if DTYPE == 1
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#endif
#include "float_bits.glsl"

layout(local_size_x = 256) in;

#if DTYPE == 1
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uint64_t grad_out[]; };
layout(set = 0, binding = 1, std430) buffer GradIn { uint64_t grad_in[]; };
#else
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uint grad_out[]; };
layout(set = 0, binding = 1, std430) buffer GradIn { uint grad_in[]; };
#endif
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

layout(push_constant) uniform Params {
  uint n_out;  // grad_out elements: the dispatch bound
  uint n_in;
  uint rank;
  uint unused0;
  uint unused1;
} pc;

uint map_coord(uint a, uint c) {
  const int n = int(shape_buf[a]);
  int i = int(c) - int(shape_buf[2u * pc.rank + a]);
#if MODE == 1
  i = i < 0 ? -i : i;
  i = i >= n ? 2 * (n - 1) - i : i;
  return uint(i);
#else
  return uint(clamp(i, 0, n - 1));
#endif
}

void main() {
  const uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (e >= pc.n_out) return;
  uint rem = e;
  uint idx = 0u;
  uint stride = 1u;
  [[unroll]] for (int a = 7; a >= 0; --a) {
    if (uint(a) < pc.rank) {
      const uint d = shape_buf[pc.rank + uint(a)];
      idx += map_coord(uint(a), rem % d) * stride;
      rem /= d;
      stride *= shape_buf[uint(a)];
    }
  }
#if DTYPE == 0
  const float g = uintBitsToFloat(grad_out[e]);
  uint expected = grad_in[idx];
  uint seen;
  do {
    seen = expected;
    expected = atomicCompSwap(grad_in[idx], seen, floatBitsToUint(uintBitsToFloat(seen) + g));
  } while (expected != seen);
#elif DTYPE == 1
  const double g = uint64BitsToDouble(grad_out[e]);
  uint64_t expected = grad_in[idx];
  uint64_t seen;
  do {
    seen = expected;
    expected = atomicCompSwap(grad_in[idx], seen, doubleBitsToUint64(uint64BitsToDouble(seen) + g));
  } while (expected != seen);
#else
  const uint shift = (e & 1u) * 16u;
  const uint lane_in = (idx & 1u) * 16u;
#if DTYPE == 2
  const float g = f16_to_f32(grad_out[e >> 1] >> shift);
#else
  const float g = bf16_to_f32(grad_out[e >> 1] >> shift);
#endif
  const uint w = idx >> 1;
  uint expected = grad_in[w];
  uint seen;
  do {
    seen = expected;
#if DTYPE == 2
    const uint sum = f32_to_f16(f16_to_f32(seen >> lane_in) + g);
#else
    const uint sum = f32_to_bf16(bf16_to_f32(seen >> lane_in) + g);
#endif
    const uint updated = (seen & ~(0xFFFFu << lane_in)) | (sum << lane_in);
    expected = atomicCompSwap(grad_in[w], seen, updated);
  } while (expected != seen);
#endif
}
