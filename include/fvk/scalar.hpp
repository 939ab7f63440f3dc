// A fill value as the user wrote it, and its bit pattern in a given dtype.
#pragma once

#include <cstdint>
#include <string_view>

#include "fvk/dtype.hpp"

namespace fvk {

class Scalar {
 public:
  Scalar() = default;
  static Scalar from_double(double v);
  static Scalar from_int(std::int64_t v);
  static Scalar from_uint(std::uint64_t v);
  static Scalar from_bool(bool v);
  // Parses "1.5", "-3", "0x7f", "nan", "inf", "true"/"false"; throws InvalidArgument when it is none.
  static Scalar parse(std::string_view text);

  // The element's bit pattern in `dtype`, zero-extended to 64 bits. Throws ValueOutOfRange when the
  // value is not representable (an integer dtype given a fraction or a value beyond its range, a
  // float dtype given a finite value beyond its largest finite one, bool given anything but 0/1).
  std::uint64_t bits(DType dtype) const;

 private:
  enum class Kind { Float, Int, UInt, Bool } kind_ = Kind::Int;
  double f_ = 0;
  std::int64_t i_ = 0;
  std::uint64_t u_ = 0;
};

}  // namespace fvk
