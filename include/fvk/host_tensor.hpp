// A dense, C-order tensor in host memory: what files, the CPU reference and tests exchange.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "fvk/dtype.hpp"
#include "fvk/shape.hpp"

namespace fvk {

struct HostTensor {
  DType dtype = DType::F32;
  Shape shape;
  std::vector<std::byte> data;  // numel(shape) * byte_width(dtype) bytes, row-major

  // Throws InvalidArgument (a negative dim) or IndexOverflow (see check_dense_shape).
  static HostTensor zeros(DType dtype, Shape shape) {
    HostTensor t{dtype, std::move(shape), {}};
    t.data.assign(static_cast<std::size_t>(check_dense_shape(t.shape, byte_width(dtype), "host tensor")), std::byte{0});
    return t;
  }
  std::size_t numel() const { return static_cast<std::size_t>(fvk::numel(shape)); }
  std::size_t nbytes() const { return data.size(); }
  std::size_t elem_bytes() const { return byte_width(dtype); }

  template <typename T>
  T get(std::size_t i) const {
    T v;
    std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  void set(std::size_t i, T v) {
    std::memcpy(data.data() + i * sizeof(T), &v, sizeof(T));
  }
};

}  // namespace fvk
