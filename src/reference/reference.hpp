// The CPU reference: the independent oracle every GPU result is held against. It works on dense
// C-order HostTensors and never uses ops/ or the shaders; only the shared shape rules (infer_*).
#pragma once

#include <cstdint>
#include <span>

#include "fvk/dtype.hpp"
#include "fvk/host_tensor.hpp"
#include "fvk/pad_spec.hpp"
#include "fvk/shape.hpp"

namespace fvk::ref {

// Forward pad (constant / reflect / replicate per g.mode). Elements are copied byte for byte, so
// any dtype of width 1/2/4/8 works; `fill_bits` holds the fill element in its low byte_width bytes.
// `in.shape` must equal g.in and g.out must be in + left + right (ShapeMismatch otherwise).
HostTensor pad(const HostTensor& in, const PadGeometry& g, std::uint64_t fill_bits);

// Backward of a constant pad: grad_in[c] = grad_out[c + left], a byte copy (any dtype).
// g.out is grad_out's shape, g.in grad_in's (as infer_pad_backward gives them).
HostTensor pad_backward_const(const HostTensor& grad_out, const PadGeometry& g);

// Backward of a reflect / replicate pad for F32, F64, F16, BF16. Each grad_in element is a sum over
// the grad_out elements that the forward read from it, taken in one fixed order (the deterministic
// GPU kernel uses the same, and tests compare bit for bit):
//   per axis, the ascending list of output coords o with map(o - left) == ci; the Cartesian product
//   of those lists walked as an odometer (axis 0 outermost, last axis fastest); acc = acc + x from
//   acc = the first term, in float for F16/BF16/F32 and in double for F64; F16/BF16 rounded (RNE)
//   once at the end. A single contributor is copied bit for bit (-0.0 and NaN payloads included).
// Subnormal f32 values in the F16/BF16/F32 sums are kept (IEEE), or, with Subnormals::Flush, taken
// and given as zero of the same sign, the way a device that flushes f32 denormals adds (the H200's
// driver does; lavapipe keeps them).
enum class Subnormals { Keep, Flush };
HostTensor pad_backward_sum(const HostTensor& grad_out, const PadGeometry& g, Subnormals f32 = Subnormals::Keep);

// The same sums (any of the three modes, same order) carried in double and returned as F64, for
// accuracy reports. Inputs are widened exactly.
HostTensor pad_backward_exact(const HostTensor& grad_out, const PadGeometry& g);

// out[i] = mask[i] != 0 ? fill : in[i]. The mask is Bool and of the input's shape.
HostTensor masked_fill(const HostTensor& in, const HostTensor& mask, std::uint64_t fill_bits);

// Realizes a strided view of `base` into a dense tensor. Strides and offset count elements and may
// be negative or zero; every element the view reads is bounds-checked against base.size()
// (InvalidArgument when one falls outside).
HostTensor contiguize(std::span<const std::byte> base, DType dtype, const Shape& shape,
                      std::span<const std::int64_t> strides_elems, std::int64_t offset_elems);

}  // namespace fvk::ref
