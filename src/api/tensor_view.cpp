#include "fvk/tensor_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "fvk/error.hpp"
#include "runtime/buffer.hpp"

namespace fvk {

namespace {

// The dense strides of a shape with more than 2^63-1 elements do not fit in 64 bits; `fvk plan
// --shape` hands such shapes here unchecked.
[[noreturn]] void no_dense_strides(const Shape& shape) {
  fail(ErrorCode::IndexOverflow,
       fmt::format("shape {} has more than 2^63-1 elements (a 0 dim counted as 1): it has no dense strides",
                   to_string(shape)));
}
}  // namespace

Strides dense_strides(const Shape& shape) {
  Strides s(shape.size(), 1);
  for (std::size_t a = shape.size(); a-- > 1;)
    if (__builtin_mul_overflow(s[a], std::max<std::int64_t>(shape[a], 1), &s[a - 1])) no_dense_strides(shape);
  return s;
}

Strides column_major_strides(const Shape& shape) {
  Strides s(shape.size(), 1);
  for (std::size_t a = 1; a < shape.size(); ++a)
    if (__builtin_mul_overflow(s[a - 1], std::max<std::int64_t>(shape[a - 1], 1), &s[a])) no_dense_strides(shape);
  return s;
}

std::string LayoutFeatures::str() const {
  if (contiguous) return "contiguous";
  std::string out;
  auto add = [&](bool on, const char* word) {
    if (on) out += (out.empty() ? "" : "+") + std::string(word);
  };
  add(strided, "strided");
  add(broadcast, "broadcast");
  add(offset, "offset");
  add(reversed, "reversed");
  return out;
}

ViewLayout ViewLayout::dense(DType dtype, Shape shape) {
  ViewLayout v{dtype, std::move(shape), {}, 0};
  v.strides = dense_strides(v.shape);
  return v;
}

LayoutFeatures ViewLayout::features() const {
  LayoutFeatures f;
  if (numel() == 0) return f;
  f.offset = offset != 0;
  // Dense strides ignoring size-1 axes: expected stride of axis a is the product of the dims after it.
  std::int64_t expected = 1;
  for (std::size_t a = shape.size(); a-- > 0;) {
    if (shape[a] != 1) {
      if (strides[a] == 0)
        f.broadcast = true;
      else if (strides[a] < 0)
        f.reversed = true;
      else if (strides[a] != expected)
        f.strided = true;
    }
    expected *= shape[a];
  }
  f.contiguous = !f.offset && !f.broadcast && !f.reversed && !f.strided;
  return f;
}

namespace {
// ViewLayout::reach for a layout whose form has been checked (check_form).
std::pair<std::int64_t, std::int64_t> reach_of_checked(const ViewLayout& v) {
  std::int64_t lo = v.offset, hi = v.offset;
  if (v.numel() == 0) return {lo, hi};
  for (std::size_t a = 0; a < v.shape.size(); ++a) {
    std::int64_t span = 0;
    if (__builtin_mul_overflow(v.shape[a] - 1, v.strides[a], &span) ||
        __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
      fail(ErrorCode::IndexOverflow,
           fmt::format("view (shape {}, strides {}, offset {}) reaches element offsets beyond 64 bits on dim {}",
                       to_string(v.shape), to_string(v.strides), v.offset, a));
  }
  return {lo, hi};
}
}  // namespace

std::pair<std::int64_t, std::int64_t> ViewLayout::reach(std::string_view what) const {
  check_form(what);
  return reach_of_checked(*this);
}

void ViewLayout::check_form(std::string_view what) const {
  if (shape.size() > 64)
    fail(ErrorCode::RankOutOfRange, fmt::format("{} has rank {}; views go up to rank 64", what, shape.size()));
  if (strides.size() != shape.size())
    fail(ErrorCode::InvalidArgument, fmt::format("{} has {} strides for shape {} of rank {}; give one stride per dim",
                                                 what, strides.size(), to_string(shape), shape.size()));
  for (std::size_t a = 0; a < shape.size(); ++a)
    if (shape[a] < 0)
      fail(ErrorCode::InvalidArgument, fmt::format("{} dim {} is {}; dims must be >= 0", what, a, shape[a]));
  if (!dense_bytes(shape, 1))
    fail(ErrorCode::IndexOverflow,
         fmt::format("{} shape {} has more than 2^63-1 elements (a 0 dim counted as 1)", what, to_string(shape)));
}

void ViewLayout::validate(std::int64_t base_elements, std::string_view what) const {
  check_form(what);
  if (numel() == 0) return;
  const auto [lo, hi] = reach_of_checked(*this);
  if (lo < 0 || hi >= base_elements)
    fail(ErrorCode::InvalidArgument,
         fmt::format("{} (shape {}, strides {}, offset {}) reaches elements {}..{} but its buffer holds {} elements of "
                     "{}; every element must lie inside the buffer",
                     what, to_string(shape), to_string(strides), offset, lo, hi, base_elements, name(dtype)));
}

TensorView::TensorView(const Tensor& tensor)
    : base_(tensor), layout_(ViewLayout::dense(tensor.dtype(), tensor.shape())) {}

TensorView::TensorView(const Tensor& base, Shape shape, Strides strides, std::int64_t offset, std::string_view what)
    : base_(base), layout_{base.dtype(), std::move(shape), std::move(strides), offset} {
  if (!base.defined())
    fail(ErrorCode::InvalidArgument, fmt::format("{}: the base tensor is empty (default-constructed)", what));
  layout_.validate(static_cast<std::int64_t>(base.storage()->size() / byte_width(base.dtype())), what);
}

namespace {
void check_axis(const TensorView& v, int axis, std::string_view op) {
  if (axis < 0 || static_cast<std::size_t>(axis) >= v.shape().size())
    fail(ErrorCode::InvalidArgument,
         fmt::format("{}: axis {} is outside a view of rank {}", op, axis, v.shape().size()));
}
}  // namespace

TensorView TensorView::permute(const std::vector<int>& order) const {
  const auto rank = shape().size();
  std::vector<bool> seen(rank, false);
  if (order.size() != rank)
    fail(ErrorCode::InvalidArgument, fmt::format("permute: {} axes for rank {}", order.size(), rank));
  Shape s;
  Strides st;
  for (int a : order) {
    check_axis(*this, a, "permute");
    if (seen[a]) fail(ErrorCode::InvalidArgument, fmt::format("permute: axis {} given twice", a));
    seen[a] = true;
    s.push_back(shape()[a]);
    st.push_back(strides()[a]);
  }
  return TensorView(base_, s, st, offset(), "permuted view");
}

TensorView TensorView::flip(int axis) const {
  check_axis(*this, axis, "flip");
  Strides st = strides();
  std::int64_t off = offset();
  // The offset moves to the axis's last element and the stride turns. Either can overflow only where
  // nothing is read through it (an empty view's offset, a size-1 axis's stride, which no reach
  // holds); there it stays as it was.
  if (std::int64_t step = 0, moved = 0; shape()[axis] > 0 &&
                                        !__builtin_mul_overflow(shape()[axis] - 1, st[axis], &step) &&
                                        !__builtin_add_overflow(off, step, &moved))
    off = moved;
  if (st[axis] != std::numeric_limits<std::int64_t>::min()) st[axis] = -st[axis];
  return TensorView(base_, shape(), st, off, "flipped view");
}

TensorView TensorView::slice(int axis, std::int64_t begin, std::int64_t end, std::int64_t step) const {
  check_axis(*this, axis, "slice");
  if (step <= 0 || begin < 0 || end < begin || end > shape()[axis])
    fail(ErrorCode::InvalidArgument,
         fmt::format("slice [{}, {}) step {} of axis {} (size {}): need 0 <= begin <= end <= "
                     "size and step >= 1",
                     begin, end, step, axis, shape()[axis]));
  Shape s = shape();
  Strides st = strides();
  // (end - begin + step - 1) / step without the overflow of a step near 2^63.
  s[axis] = end == begin ? 0 : (end - begin - 1) / step + 1;
  // The offset moves to `begin` and the stride takes the step. In a view with elements both stay
  // within its checked reach (begin < size; with two or more elements left, step <= size - 1); they
  // can overflow only where nothing is read through them (an empty view, a begin one past a size-1
  // axis), and there they stay as they were.
  std::int64_t off = offset();
  if (std::int64_t moved = 0, to_begin = 0;
      !__builtin_mul_overflow(begin, st[axis], &to_begin) && !__builtin_add_overflow(off, to_begin, &moved))
    off = moved;
  if (std::int64_t stepped = 0; s[axis] > 1 && !__builtin_mul_overflow(st[axis], step, &stepped)) st[axis] = stepped;
  return TensorView(base_, s, st, off, "sliced view");
}

TensorView TensorView::expand(int axis, std::int64_t size) const {
  check_axis(*this, axis, "expand");
  if (shape()[axis] != 1 || size < 0)
    fail(ErrorCode::InvalidArgument,
         fmt::format("expand: axis {} has size {}; only a size-1 axis broadcasts (to a size >= 0)", axis,
                     shape()[axis]));
  Shape s = shape();
  Strides st = strides();
  s[axis] = size;
  st[axis] = 0;
  return TensorView(base_, s, st, offset(), "expanded view");
}

}  // namespace fvk
