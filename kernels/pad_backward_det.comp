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
#define ACC double
#else
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uint grad_out[]; };
#define ACC float
#endif
// grad_in written in 16-byte chunks (the allocation is rounded up to 16 bytes).
layout(set = 0, binding = 1, std430) writeonly buffer GradIn4 { uvec4 grad_in4[]; };
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

layout(push_constant) uniform Params {
  uint n_invocations;  // 16-byte chunks of grad_in: ceil(n_in * dtype_bytes / 16)
  uint n_in;           // grad_in elements
  uint rank;
  uint unused0;
  uint unused1;
} pc;


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

// Per axis, the grad_out coordinates that map to grad_in coordinate ci, ascending:
//   reflect:   up to three single positions (left mirror, direct, right mirror);
//   replicate: one range [p0, p0 + count - 1].
// `pos(k)` gives the k-th of them. Kept in registers: the axis loops below are unrolled, so every
// array index is a constant.
struct Contributors {
  uint p0, p1, p2;
  uint count;
};

Contributors contributors(uint a, uint ci) {
  const uint n = shape_buf[a];
  const uint out_dim = shape_buf[pc.rank + a];
  const uint left = shape_buf[2u * pc.rank + a];
  const uint right = out_dim - n - left;
  Contributors s;
#if MODE == 1
  const bool has_left = ci >= 1u && ci <= left;
  const bool has_right = ci + 2u <= n && ci + 1u + right >= n;  // n-1-right <= ci <= n-2
  const uint direct = ci + left;
  const uint mirror_right = left + 2u * (n - 1u) - ci;
  s.p0 = has_left ? left - ci : direct;
  s.p1 = has_left ? direct : mirror_right;
  s.p2 = mirror_right;
  s.count = 1u + (has_left ? 1u : 0u) + (has_right ? 1u : 0u);
#else
  s.p0 = ci == 0u ? 0u : ci + left;
  const uint hi = ci == n - 1u ? out_dim - 1u : ci + left;
  s.p1 = 0u;
  s.p2 = 0u;
  s.count = hi - s.p0 + 1u;
#endif
  return s;
}

uint pos(Contributors s, uint k) {
#if MODE == 1
  return k == 0u ? s.p0 : k == 1u ? s.p1 : s.p2;
#else
  return s.p0 + k;
#endif
}

// The sum for grad_in element e, in the fixed order: the Cartesian product of the per-axis lists,
// axis 0 outermost, last axis fastest. Three tiers, the same order in each: one contributor (most
// elements); several only along the innermost axis (rows' edges); the general product.
ACC gather(uint e) {
  Contributors ax[8];
  uint stride[8];
  uint rem = e;
  uint st = 1u;
  uint outer_off = 0u;  // offset of the first contributor on every axis but the innermost
  uint outer_terms = 1u;
  const uint inner = pc.rank - 1u;
  [[unroll]] for (int a = 7; a >= 0; --a) {
    ax[a].p0 = 0u; ax[a].p1 = 0u; ax[a].p2 = 0u; ax[a].count = 1u;
    stride[a] = 0u;
    if (uint(a) < pc.rank) {
      const uint d = shape_buf[uint(a)];
      ax[a] = contributors(uint(a), rem % d);
      rem /= d;
      stride[a] = st;
      st *= shape_buf[pc.rank + uint(a)];
      if (uint(a) != inner) {
        outer_off += ax[a].p0 * stride[a];
        outer_terms *= ax[a].count;
      }
    }
  }
  // The innermost axis is the one with stride 1.
  Contributors in_ax = ax[0];
  [[unroll]] for (int a = 1; a < 8; ++a)
    if (uint(a) == inner) in_ax = ax[a];
  precise ACC acc = ACC(0);
  if (outer_terms == 1u) {
    for (uint k = 0u; k < in_ax.count; ++k) acc += load(outer_off + pos(in_ax, k));
    return acc;
  }
  uint total = outer_terms * in_ax.count;
  for (uint t = 0u; t < total; ++t) {
    uint r = t;
    uint off = 0u;
    [[unroll]] for (int a = 7; a >= 0; --a) {
      if (uint(a) < pc.rank) {
        uint k = 0u;
        if (ax[a].count > 1u) {
          k = r % ax[a].count;
          r /= ax[a].count;
        }
        off += pos(ax[a], k) * stride[a];
      }
    }
    acc += load(off);
  }
  return acc;
}

// Adds, in order, the innermost axis' contributors for coordinate ci of the row at grad_out offset
// `off`.
void add_row(inout precise ACC acc, uint off, uint ci) {
  const Contributors c = contributors(pc.rank - 1u, ci);
  for (uint k = 0u; k < c.count; ++k) acc += load(off + pos(c, k));
}

#if DTYPE == 1
#define CHUNK 2u
#elif DTYPE == 0
#define CHUNK 4u
#else
#define CHUNK 8u
#endif

// Stores the CHUNK sums of one 16-byte chunk of grad_in.
void store_chunk(uint q, ACC v[CHUNK]) {
#if DTYPE == 0
  grad_in4[q] = uvec4(floatBitsToUint(v[0]), floatBitsToUint(v[1]), floatBitsToUint(v[2]), floatBitsToUint(v[3]));
#elif DTYPE == 1
  grad_in4[q] = uvec4(unpackDouble2x32(v[0]), unpackDouble2x32(v[1]));
#else
  uvec4 r;
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
#if DTYPE == 2
    r[w] = f32_to_f16(v[2u * w]) | (f32_to_f16(v[2u * w + 1u]) << 16u);
#else
    r[w] = f32_to_bf16(v[2u * w]) | (f32_to_bf16(v[2u * w + 1u]) << 16u);
#endif
  }
  grad_in4[q] = r;
#endif
}

// Each invocation writes one 16-byte chunk of grad_in: CHUNK consecutive elements. When they lie in
// one row whose outer axes have a single contributor (nearly always), the outer index math is done
// once for the chunk and each element only sums along the innermost axis.
void main() {
  const uint q = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (q >= pc.n_invocations) return;
  const uint inner = pc.rank - 1u;
  const uint e0 = q * CHUNK;
  const uint n_inner = shape_buf[inner];
  const uint ci0 = e0 % n_inner;
  precise ACC v[CHUNK];
  if (ci0 + CHUNK <= n_inner && e0 + CHUNK <= pc.n_in) {
    // Outer axes' contributor lists, once for the chunk.
    Contributors oax[7];
    uint ostride[7];
    uint row = e0 / n_inner;
    uint outer_terms = 1u;
    uint st = shape_buf[pc.rank + inner];
    [[unroll]] for (int a = 6; a >= 0; --a) {
      oax[a].p0 = 0u; oax[a].p1 = 0u; oax[a].p2 = 0u; oax[a].count = 1u;
      ostride[a] = 0u;
      if (uint(a) < inner) {
        const uint d = shape_buf[uint(a)];
        oax[a] = contributors(uint(a), row % d);
        row /= d;
        ostride[a] = st;
        outer_terms *= oax[a].count;
        st *= shape_buf[pc.rank + uint(a)];
      }
    }
    [[unroll]] for (uint k = 0u; k < CHUNK; ++k) v[k] = ACC(0);
    // Outer combinations in odometer order (axis 0 outermost); for each, every element adds its
    // innermost contributors: per element, exactly the order of the general product.
    for (uint t = 0u; t < outer_terms; ++t) {
      uint r = t;
      uint off = 0u;
      [[unroll]] for (int a = 6; a >= 0; --a) {
        if (uint(a) < inner) {
          uint k = 0u;
          if (oax[a].count > 1u) {
            k = r % oax[a].count;
            r /= oax[a].count;
          }
          off += pos(oax[a], k) * ostride[a];
        }
      }
      [[unroll]] for (uint k = 0u; k < CHUNK; ++k) add_row(v[k], off, ci0 + k);
    }
    store_chunk(q, v);
    return;
  }
  [[unroll]] for (uint k = 0u; k < CHUNK; ++k) v[k] = e0 + k < pc.n_in ? gather(e0 + k) : ACC(0);
  store_chunk(q, v);
}
