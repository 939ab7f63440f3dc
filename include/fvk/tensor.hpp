// A dense, row-major tensor in device memory. Cheap to copy (the storage is shared).
#pragma once

#include <memory>

#include "fvk/dtype.hpp"
#include "fvk/shape.hpp"

namespace fvk {

namespace rt {
class Buffer;
}

class Tensor {
 public:
  Tensor() = default;
  Tensor(std::shared_ptr<rt::Buffer> storage, DType dtype, Shape shape)
      : storage_(std::move(storage)), dtype_(dtype), shape_(std::move(shape)) {}

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t numel() const { return fvk::numel(shape_); }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * byte_width(dtype_); }
  bool defined() const { return storage_ != nullptr; }

  const std::shared_ptr<rt::Buffer>& storage() const { return storage_; }

 private:
  std::shared_ptr<rt::Buffer> storage_;
  DType dtype_ = DType::F32;
  Shape shape_;
};

}  // namespace fvk
