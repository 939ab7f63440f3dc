#version 450
// Reflect / replicate pad backward by atomic scatter: an invocation adds a grad_out element into the
// grad_in slot the forward read it from. The add is a compare-and-swap retry loop that never gives up
// (lock-free: some invocation always succeeds), so no contribution is ever dropped; the order of adds
// depends on the scheduler (nondeterministic).
//   MODE 1 reflect, 2 replicate.  DTYPE 0 f32, 1 f64, 2 f16, 3 bf16.
// Passes, one SPIR-V module each (REGION; see main):
//   0: every grad_out element, onto a zero-filled grad_in;
//   1, 2: only the grad_out elements in a pad, after the wrapper has written every grad_in element's
//     direct contributor (grad_out[c + left], a crop through pad_backward_const_bN): 1 the innermost
//     pads of rows whose outer coordinates are all inside the input, `slots` invocations per grad_out
//     row: reflect left + right, one per pad element; replicate side_lanes(left) +
//     side_lanes(right), each summing a strided share of one side's elements before its one add;
//     2 the whole rows with an outer coordinate in a pad, `slots` invocations per grad_out row (a
//     multiple of 32 chosen so that none adds more than 256 elements: devices that end long
//     loops, such as lavapipe, count every retry loop's turns);
//   3: pass 2 for rows of up to 65536 elements, by workgroups of G = `slots` rows (see
//     outer_pad_rows), G * row <= 65536 so that none adds more than 256 elements either.
// Passes 1 and 3 take the rows last to first: the crop before them wrote grad_in (and read
// grad_out) first to last, so the rows they reach first are those whose lines the cache still
// holds. On the H200, rank5: 0.92-0.96x the time of first to last.
// The f64 build adds with the device's f64 atomic add (shaderBufferFloat64AtomicAdd), one
// instruction where the compare-and-swap loop reads, adds and retries: on the H200 0.85-0.90x the
// time on rank5. Its PORTABLE build (pad_backward_*_portable_f64, for devices without that
// feature) keeps the 64-bit compare-and-swap loop. Both round every add to f64.
#ifndef PORTABLE
#define PORTABLE 0
#endif
#define F64_ATOMIC_ADD (DTYPE == 1 && !PORTABLE)
#extension GL_EXT_control_flow_attributes : require
#if F64_ATOMIC_ADD
#extension GL_EXT_shader_atomic_float : require
#elif DTYPE == 1
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#endif
#include "float_bits.glsl"

layout(local_size_x = 256) in;

#if F64_ATOMIC_ADD
layout(set = 0, binding = 0, std430) readonly buffer GradOut { double grad_out[]; };
layout(set = 0, binding = 1, std430) buffer GradIn { double grad_in[]; };
#elif DTYPE == 1
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uint64_t grad_out[]; };
layout(set = 0, binding = 1, std430) buffer GradIn { uint64_t grad_in[]; };
#else
layout(set = 0, binding = 0, std430) readonly buffer GradOut { uint grad_out[]; };
layout(set = 0, binding = 1, std430) buffer GradIn { uint grad_in[]; };
#endif
layout(set = 0, binding = 2, std430) readonly buffer ShapeBuf { uint shape_buf[]; };

layout(push_constant) uniform Params {
  uint n_invocations;  // the dispatch bound: grad_out elements (pass 0), rows * slots (1, 2), ceil(rows / G) * 256 (3)
  uint n_in;
  uint rank;
  uint slots;  // invocations per grad_out row: pass 1 reflect left + right, replicate side_lanes(left) +
               // side_lanes(right); pass 2 see above; pass 3: grad_out rows per workgroup
  uint rows;   // passes 1 and 3: grad_out rows
} pc;

// The pass (see above): the build compiles one SPIR-V module per pass with FVK_PASS set
// (kernels/CMakeLists.txt), so each module holds its own pass's code only.
#ifndef FVK_PASS
#error "FVK_PASS (the pass) must be defined"
#endif
const uint REGION = FVK_PASS;

uint in_dim(uint a) { return shape_buf[a]; }
uint out_dim(uint a) { return shape_buf[pc.rank + a]; }
uint left_pad(uint a) { return shape_buf[2u * pc.rank + a]; }

// n / out_dim(a) by multiply-high and shifts (exact for every 32-bit n); the wrapper stores each
// grad_out dim's multiplier and two shifts after left_pad.
uint div_out(uint n, uint a) {
  const uint m = shape_buf[3u * pc.rank + a];
  const uint sh = shape_buf[4u * pc.rank + a];
  uint hi, lo;
  umulExtended(n, m, hi, lo);
  return (hi + ((n - hi) >> (sh & 0xFFu))) >> (sh >> 8);
}

// Pass 1, replicate: invocations per side of a row for an innermost pad of p elements (the
// wrapper's replicate_side_lanes): one per 16 elements up to 8, more only so that none sums more
// than 256.
uint side_lanes(uint p) { return max((p + 255u) / 256u, min(8u, (p + 15u) / 16u)); }

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

// The sum type of the adds: f64 for f64, f32 for the others (f16 and bf16 widened exactly).
#if DTYPE == 1
#define SUM double
#else
#define SUM float
#endif

// grad_out element e, exactly in the sum type.
SUM grad_value(uint e) {
#if DTYPE == 0
  return uintBitsToFloat(grad_out[e]);
#elif F64_ATOMIC_ADD
  return grad_out[e];
#elif DTYPE == 1
  return uint64BitsToDouble(grad_out[e]);
#elif DTYPE == 2
  return f16_to_f32(grad_out[e >> 1] >> ((e & 1u) * 16u));
#else
  return bf16_to_f32(grad_out[e >> 1] >> ((e & 1u) * 16u));
#endif
}

// The words the compare-and-swap works on: the element itself (f32, f64) or the 32-bit word that
// holds it (f16, bf16). Not used by the f64 atomic add.
#if DTYPE == 1 && !F64_ATOMIC_ADD
#define WORD uint64_t
#else
#define WORD uint
#endif
uint word_of(uint idx) { return DTYPE >= 2 ? idx >> 1 : idx; }

// Word `seen` of grad_in with g added to its element idx (f16 and bf16: in f32, rounded back to the
// element's format, the other half of the word unchanged).
#if !F64_ATOMIC_ADD
WORD added(WORD seen, uint idx, SUM g) {
#if DTYPE == 0
  return floatBitsToUint(uintBitsToFloat(seen) + g);
#elif DTYPE == 1
  return doubleBitsToUint64(uint64BitsToDouble(seen) + g);
#else
  const uint lane_in = (idx & 1u) * 16u;
#if DTYPE == 2
  const uint sum = f32_to_f16(f16_to_f32(seen >> lane_in) + g);
#else
  const uint sum = f32_to_bf16(bf16_to_f32(seen >> lane_in) + g);
#endif
  return (seen & ~(0xFFFFu << lane_in)) | (sum << lane_in);
#endif
}
#endif

// Adds g into grad_in element idx.
void add_value(uint idx, SUM g) {
#if F64_ATOMIC_ADD
  atomicAdd(grad_in[idx], g);
#else
  const uint w = word_of(idx);
  WORD expected = grad_in[w];
  WORD seen;
  do {
    seen = expected;
    expected = atomicCompSwap(grad_in[w], seen, added(seen, idx, g));
  } while (expected != seen);
#endif
}

// Adds grad_out element e into grad_in element idx.
void add_to(uint idx, uint e) { add_value(idx, grad_value(e)); }

// grad_out row r's outer coordinates (every axis but the innermost): the grad_in offset of the row
// they read (in elements), and whether every one of them lies inside the input (no pad).
bool outer_row(uint r, out uint off) {
  const uint inner = pc.rank - 1u;
  off = 0u;
  bool inside = true;
  uint stride = in_dim(inner);
  uint rem = r;
  [[unroll]] for (int a = 6; a >= 0; --a) {
    if (uint(a) < inner) {
      const uint q = div_out(rem, uint(a));
      const uint c = rem - q * out_dim(uint(a));
      const int i = int(c) - int(left_pad(uint(a)));
      inside = inside && i >= 0 && i < int(in_dim(uint(a)));
      off += map_coord(uint(a), c) * stride;
      stride *= in_dim(uint(a));
      rem = q;
    }
  }
  return inside;
}

// Pass 3: each workgroup takes G = `slots` consecutive grad_out rows. One invocation per row looks up
// its outer coordinates; the rows with one in a pad are listed in shared memory, and after a barrier
// the workgroup's 256 invocations share their elements (pass 2 gave each row 32 invocations, so
// nearly all of them, in rows inside the input, returned at once).
const uint OUTER_LIST = REGION == 3u ? 256u : 1u;
shared uint outer_rows[OUTER_LIST];
shared uint outer_offs[OUTER_LIST];
shared uint outer_count;

void outer_pad_rows(uint g, uint row) {
  const uint lid = gl_LocalInvocationID.x;
  const uint G = pc.slots;
  const uint groups = pc.n_invocations / 256u;  // ceil(rows / G) workgroups
  const uint w = (g - lid) / 256u;
  if (w >= groups) return;                 // the whole workgroup: past grad_out
  const uint r0 = (groups - 1u - w) * G;  // the workgroup's first row: last rows first
  if (lid == 0u) outer_count = 0u;
  barrier();
  uint off;
  if (lid < G && r0 + lid < pc.rows && !outer_row(r0 + lid, off)) {
    const uint j = atomicAdd(outer_count, 1u);
    outer_rows[j] = r0 + lid;
    outer_offs[j] = off;
  }
  barrier();
  const uint items = outer_count * row;
  for (uint i = lid; i < items; i += 256u) {
    const uint j = i / row;
    const uint c = i - j * row;
    add_to(outer_offs[j] + map_coord(pc.rank - 1u, c), outer_rows[j] * row + c);
  }
}

void main() {
  const uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint inner = pc.rank - 1u;
  const uint row = out_dim(inner);
  if (REGION == 3u) {  // no early return before its barriers
    outer_pad_rows(g, row);
    return;
  }
  if (g >= pc.n_invocations) return;
  if (REGION == 1u) {
    const uint i = g / pc.slots;
    const uint s = g - i * pc.slots;
    const uint r = pc.rows - 1u - i;  // last rows first
    uint off;
    if (!outer_row(r, off)) return;  // pass 2's
    const uint left = left_pad(inner);
#if MODE == 1
    // Slot s of row r: innermost pad element s (left ones first); each has a grad_in slot of its own.
    const uint c = s < left ? s : row - pc.slots + s;
    add_to(off + map_coord(inner, c), r * row + c);
#else
    // Replicate: every element of a pad lands on the same grad_in element, so slot s sums a strided
    // share of its side (side_lanes(pad) invocations per side, at most 256 elements each) in the sum
    // type and adds that once: far fewer adds on one address than an add per element.
    const uint lanes_left = side_lanes(left);
    const bool on_left = s < lanes_left;
    const uint step = on_left ? lanes_left : pc.slots - lanes_left;
    const uint right = row - in_dim(inner) - left;
    const uint first = on_left ? s : row - right + (s - lanes_left);
    const uint end = on_left ? left : row;
    // Eight loads at a time: a long side's share is up to 256 elements, and loads one after another
    // would each wait for the one before.
    SUM sum = grad_value(r * row + first);
    uint c = first + step;
    for (; c + 7u * step < end; c += 8u * step) {
      SUM v[8];
      [[unroll]] for (uint k = 0u; k < 8u; ++k) v[k] = grad_value(r * row + c + k * step);
      sum += ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    }
    for (; c < end; c += step) sum += grad_value(r * row + c);
    add_value(off + (on_left ? 0u : in_dim(inner) - 1u), sum);
#endif
    return;
  }
  if (REGION == 2u) {  // row g / slots, every slots-th element from g % slots
    const uint r = g / pc.slots;
    uint off;
    if (outer_row(r, off)) return;  // inside on the outer axes: its direct row was copied
    for (uint c = g - r * pc.slots; c < row; c += pc.slots) add_to(off + map_coord(inner, c), r * row + c);
    return;
  }
  // Pass 0: grad_out element g, its coordinates by multiply-high divisions.
  uint rem = g;
  uint idx = 0u;
  uint stride = 1u;
  [[unroll]] for (int a = 7; a >= 0; --a) {
    if (uint(a) < pc.rank) {
      const uint q = div_out(rem, uint(a));
      idx += map_coord(uint(a), rem - q * out_dim(uint(a))) * stride;
      rem = q;
      stride *= in_dim(uint(a));
    }
  }
  add_to(idx, g);
}
