// Contiguize: realizes a strided view into a dense row-major buffer (kernels/contiguize.comp).
// The planner records it before any input a requires_contiguous kernel cannot read as it is.
#pragma once

#include <cstdint>
#include <string>

#include "fvk/tensor_view.hpp"
#include "runtime/buffer.hpp"
#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace fvk::ops {

std::string contiguize_kernel(DType dtype);

// The same view with size-1 axes dropped and neighbouring axes merged where the outer one steps
// over exactly the inner one (stride[a] == stride[a+1] * dim[a+1]); rank 0 becomes {1} / {1}.
// Reaches the same elements in the same order.
ViewLayout coalesce(const ViewLayout& view);

// Throws before dispatching: IndexOverflow past 32-bit element indexing, DeviceLimit past
// maxStorageBufferRange for the source (`base_bytes`) or the output.
void check_contiguize(const rt::Device& device, const ViewLayout& view, std::uint64_t base_bytes,
                      std::string_view what);

// Writes the view's elements of `src` densely into `dst` (at least numel * width bytes).
void record_contiguize(rt::Stream& stream, const ViewLayout& view, const rt::Buffer& src, const rt::Buffer& dst);

}  // namespace fvk::ops
