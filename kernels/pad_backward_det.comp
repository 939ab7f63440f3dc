#version 450
// Deterministic reflect / replicate pad backward: a gather. Each grad_in element sums every grad_out
// position that the forward pad filled from it, in one fixed order: the Cartesian product of the
// per-axis contributor lists, axis 0 outermost, each list ascending. f16/bf16 accumulate in f32 and
// round once; f32 in f32; f64 in f64. No atomics, no zero-fill: grad_in is fully written, and the
// result is bit-identical run to run. The total work is n_out reads (each grad_out element is read by
// exactly one grad_in element), however large the pads.
//   MODE 1 reflect, 2 replicate.  DTYPE 0 f32, 1 f64, 2 f16, 3 bf16.
#extension GL_EXT_control_flow_attributes : require
#include "float_bits.glsl"

layout(local_size_x = 256) in;

#if DTYPE == 1
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uvec2 grad_out[]; };
layout(set = 0, binding = 1, std430) writeonly buffer GradIn { uvec2 grad_in[]; };
#define ACC double
#else
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uint grad_out[]; };
layout(set = 0, binding = 1, std430) writeonly buffer GradIn { uint grad_in[]; };
#define ACC float
#endif
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

layout(push_constant) uniform Params {
  uint n_invocations;  // words of grad_in this kernel writes (2-byte dtypes: two elements a word)
  uint n_in;           // grad_in elements
  uint rank;
  uint unused0;
  uint unused1;
} pc;

#if DTYPE >= 2
#define ELEMS_PER_INVOCATION 2u
#else
#define ELEMS_PER_INVOCATION 1u
#endif

ACC load(uint idx) {
#if DTYPE == 0
  return uintBitsToFloat(grad_out[idx]);
#elif DTYPE == 1
  return packDouble2x32(grad_out[idx]);
#elif DTYPE == 2
  return f16_to_f32(grad_out[idx >> 1] >> ((idx & 1u) * 16u));
#else
  return bf16_to_f32(grad_out[idx >> 1] >> ((idx & 1u) * 16u));
#endif
}

// Up to three contributor segments [lo, hi] per axis, ascending.
struct Axis {
  uint lo[3];
  uint hi[3];
  uint count;
};

Axis contributors(uint a, uint ci) {
  const uint n = shape_buf[a];
  const uint out_dim = shape_buf[pc.rank + a];
  const uint left = shape_buf[2u * pc.rank + a];
  const uint right = out_dim - n - left;
  Axis s;
  s.count = 0u;
  [[unroll]] for (int k = 0; k < 3; ++k) { s.lo[k] = 0u; s.hi[k] = 0u; }
#if MODE == 1
  if (ci >= 1u && ci <= left) { s.lo[s.count] = left - ci; s.hi[s.count] = left - ci; s.count++; }
  s.lo[s.count] = ci + left; s.hi[s.count] = ci + left; s.count++;
  if (ci + 2u <= n && ci + 1u + right >= n) {  // n-1-right <= ci <= n-2
    const uint o = left + 2u * (n - 1u) - ci;
    s.lo[s.count] = o; s.hi[s.count] = o; s.count++;
  }
#else
  s.lo[0] = ci == 0u ? 0u : ci + left;
  s.hi[0] = ci == n - 1u ? out_dim - 1u : ci + left;
  s.count = 1u;
#endif
  return s;
}

// Most grad_in elements receive exactly one grad_out element (the direct one at ci + left on every
// axis). Finds out without building the per-axis lists; `off` is that element's index.
bool single_contributor(uint e, out uint off) {
  uint rem = e;
  uint stride = 1u;
  bool single = true;
  off = 0u;
  [[unroll]] for (int a = 7; a >= 0; --a) {
    if (uint(a) < pc.rank) {
      const uint n = shape_buf[uint(a)];
      const uint out_dim = shape_buf[pc.rank + uint(a)];
      const uint left = shape_buf[2u * pc.rank + uint(a)];
      const uint right = out_dim - n - left;
      const uint ci = rem % n;
      rem /= n;
#if MODE == 1
      single = single && !(ci >= 1u && ci <= left) && !(ci + 2u <= n && ci + 1u + right >= n);
#else
      single = single && !(ci == 0u && left > 0u) && !(ci == n - 1u && right > 0u);
#endif
      off += (ci + left) * stride;
      stride *= out_dim;
    }
  }
  return single;
}

ACC gather(uint e) {
  uint direct;
  if (single_contributor(e, direct)) {
    precise ACC one = ACC(0) + load(direct);  // the same +0 start as the general path
    return one;
  }
  Axis ax[8];
  uint seg[8];
  uint pos[8];
  uint stride[8];
  uint rem = e;
  uint st = 1u;
  uint off = 0u;
  [[unroll]] for (int a = 7; a >= 0; --a) {
    seg[a] = 0u; pos[a] = 0u; stride[a] = 0u;
    ax[a].count = 1u;
    if (uint(a) < pc.rank) {
      const uint d = shape_buf[uint(a)];
      ax[a] = contributors(uint(a), rem % d);
      rem /= d;
      stride[a] = st;
      st *= shape_buf[pc.rank + uint(a)];
      pos[a] = ax[a].lo[0];
      off += pos[a] * stride[a];
    }
  }
  precise ACC acc = ACC(0);
  const int last = int(pc.rank) - 1;
  for (;;) {
    acc += load(off);
    // Odometer step, last axis fastest.
    int a = last;
    for (; a >= 0; --a) {
      if (pos[a] < ax[a].hi[seg[a]]) { pos[a]++; off += stride[a]; break; }
      off -= pos[a] * stride[a];
      if (seg[a] + 1u < ax[a].count) {
        seg[a]++;
      } else {
        seg[a] = 0u;
        pos[a] = ax[a].lo[0];
        off += pos[a] * stride[a];
        continue;  // carry into the next outer axis
      }
      pos[a] = ax[a].lo[seg[a]];
      off += pos[a] * stride[a];
      break;
    }
    if (a < 0) break;
  }
  return acc;
}

void main() {
  const uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (w >= pc.n_invocations) return;
#if DTYPE == 0
  grad_in[w] = floatBitsToUint(gather(w));
#elif DTYPE == 1
  grad_in[w] = unpackDouble2x32(gather(w));
#else
  uint word = 0u;
  [[unroll]] for (uint k = 0u; k < 2u; ++k) {
    const uint e = 2u * w + k;
    if (e < pc.n_in) {
#if DTYPE == 2
      word |= f32_to_f16(gather(e)) << (16u * k);
#else
      word |= f32_to_bf16(gather(e)) << (16u * k);
#endif
    }
  }
  grad_in[w] = word;
#endif
}
