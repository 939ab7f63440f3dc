// A view of a device tensor's storage: dtype, shape, strides in elements (signed: 0 broadcasts an
// axis, a negative stride walks it backwards) and a start offset in elements. What the planned ops
// (fvk/batch.hpp) take: any layout, realized by a Contiguize kernel where a kernel needs dense input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fvk/dtype.hpp"
#include "fvk/shape.hpp"
#include "fvk/tensor.hpp"

namespace fvk {

using Strides = std::vector<std::int64_t>;

// Element strides of a dense row-major tensor of `shape`. Both throw Error(IndexOverflow) where a
// stride would pass 2^63-1 (dims of 0 counted as 1).
Strides dense_strides(const Shape& shape);
// Element strides of a dense column-major (Fortran-order) tensor of `shape`.
Strides column_major_strides(const Shape& shape);

// The layout features of a view, in the words of the contracts' `layout` block. Axes of size 1 do
// not count (their stride is never applied); an empty view is contiguous.
struct LayoutFeatures {
  bool contiguous = true;   // dense row-major from element 0: what requires_contiguous kernels read
  bool strided = false;     // some stride differs from the dense one (positive strides)
  bool broadcast = false;   // some axis of size > 1 has stride 0
  bool offset = false;      // starts at an element other than 0
  bool reversed = false;    // some axis of size > 1 has a negative stride
  std::string str() const;  // "contiguous" or e.g. "strided+offset"
};

// Shape, strides and offset without the storage: what the planner decides from.
struct ViewLayout {
  DType dtype = DType::F32;
  Shape shape;
  Strides strides;
  std::int64_t offset = 0;

  static ViewLayout dense(DType dtype, Shape shape);
  LayoutFeatures features() const;
  std::int64_t numel() const { return fvk::numel(shape); }
  // The lowest and highest element index the view reaches (offset, offset when empty); checks the
  // form first (check_form, its errors naming `what`), and IndexOverflow where an index overflows
  // 64 bits.
  std::pair<std::int64_t, std::int64_t> reach(std::string_view what = "view") const;
  // Checks rank <= 64, strides count = rank, dims >= 0 and an element count (0 dims counted as 1)
  // under 2^63. Errors (RankOutOfRange, InvalidArgument, IndexOverflow) name `what`.
  void check_form(std::string_view what) const;
  // check_form, and that every element the view reaches lies in [0, base_elements).
  void validate(std::int64_t base_elements, std::string_view what) const;
};

class TensorView {
 public:
  TensorView() = default;
  // The dense view of a whole tensor (implicit: a Tensor is a view of itself).
  TensorView(const Tensor& tensor);  // NOLINT(google-explicit-constructor)
  // An explicit view of `base`'s storage in base's dtype, validated against the storage's size:
  // every reachable element inside it, else InvalidArgument naming `what`.
  TensorView(const Tensor& base, Shape shape, Strides strides, std::int64_t offset, std::string_view what = "view");

  const Tensor& base() const { return base_; }
  const ViewLayout& layout() const { return layout_; }
  DType dtype() const { return layout_.dtype; }
  const Shape& shape() const { return layout_.shape; }
  const Strides& strides() const { return layout_.strides; }
  std::int64_t offset() const { return layout_.offset; }
  std::int64_t numel() const { return layout_.numel(); }
  bool defined() const { return base_.defined(); }
  bool is_contiguous() const { return layout_.features().contiguous; }

  // Views of this view (validated like the constructor): axes reordered, one axis reversed, a
  // half-open slice [begin, end) with a positive step on one axis, a size-1 axis broadcast to `size`.
  TensorView permute(const std::vector<int>& order) const;
  TensorView flip(int axis) const;
  TensorView slice(int axis, std::int64_t begin, std::int64_t end, std::int64_t step = 1) const;
  TensorView expand(int axis, std::int64_t size) const;

 private:
  Tensor base_;
  ViewLayout layout_;
};

}  // namespace fvk
