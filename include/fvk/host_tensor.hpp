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

  // Element i read or written as a T (of the dtype's width, or raw bits of another type): i must lie
  // inside the data, else InvalidArgument (never a read or write past it).
  template <typename T>
  T get(std::size_t i) const {
    check_element(i, sizeof(T), "get");
    T v;
    std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  void set(std::size_t i, T v) {
    check_element(i, sizeof(T), "set");
    std::memcpy(data.data() + i * sizeof(T), &v, sizeof(T));
  }

 private:
  void check_element(std::size_t i, std::size_t size, const char* access) const {
    if (i >= data.size() / size) element_outside(i, size, access);
  }
  [[noreturn]] void element_outside(std::size_t i, std::size_t size, const char* access) const;
};

}  // namespace fvk
