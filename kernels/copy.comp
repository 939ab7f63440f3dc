#version 450
// The roofline: a plain 16-byte-per-invocation copy. The Judge and `fvk bench` time it on the same
// byte count as the kernel they measure, so bandwidth is reported as a fraction of what this device
// moves at best.
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Params {
  uint n_chunks;  // 16-byte chunks to copy: the dispatch bound
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i < pc.n_chunks) dst[i] = src[i];
}
