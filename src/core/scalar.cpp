#include "fvk/scalar.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "float_bits.hpp"
#include "fvk/error.hpp"

namespace fvk {

Scalar Scalar::from_double(double v) {
  Scalar s;
  s.kind_ = Kind::Float;
  s.f_ = v;
  return s;
}
Scalar Scalar::from_int(std::int64_t v) {
  Scalar s;
  s.kind_ = Kind::Int;
  s.i_ = v;
  return s;
}
Scalar Scalar::from_uint(std::uint64_t v) {
  Scalar s;
  s.kind_ = Kind::UInt;
  s.u_ = v;
  return s;
}
Scalar Scalar::from_bool(bool v) {
  Scalar s;
  s.kind_ = Kind::Bool;
  s.u_ = v ? 1 : 0;
  return s;
}

Scalar Scalar::parse(std::string_view text) {
  // strtod and strtoull stop at a NUL: "5\0x" was read as 5.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    fail(ErrorCode::InvalidArgument,
         fmt::format("value '{}' holds a NUL character at offset {}; give the number alone", text.substr(0, nul), nul));
  // strtoull would skip leading white space and then negate a '-' it finds: ' -5' became 2^64 - 5.
  if (text.find_first_of(" \t\n\r\f\v") != std::string_view::npos)
    fail(ErrorCode::InvalidArgument, fmt::format("value '{}' holds white space; give the number alone", text));
  std::string t(text);
  if (t == "true" || t == "True") return from_bool(true);
  if (t == "false" || t == "False") return from_bool(false);
  const char* begin = t.c_str();
  char* end = nullptr;
  const bool looks_int = !t.empty() && t.find_first_of(".eEnNiI") == std::string::npos;
  const bool is_hex = t.size() > 2 && (t.rfind("0x", 0) == 0 || t.rfind("-0x", 0) == 0);
  if (looks_int || is_hex) {
    // Decimal, or hex after 0x: base 0 read a leading 0 as octal, "010" as 8 (while "08" was 8.0).
    const int base = is_hex ? 16 : 10;
    errno = 0;
    if (t[0] == '-') {
      const long long v = std::strtoll(begin, &end, base);
      if (errno == 0 && end && *end == '\0') return from_int(v);
    } else {
      const unsigned long long v = std::strtoull(begin, &end, base);
      if (errno == 0 && end && *end == '\0') return from_uint(v);
    }
    if (errno == ERANGE) fail(ErrorCode::ValueOutOfRange, fmt::format("value '{}' does not fit in 64 bits", text));
  }
  errno = 0;
  const double d = std::strtod(begin, &end);
  if (t.empty() || !end || *end != '\0')
    fail(ErrorCode::InvalidArgument,
         fmt::format("value '{}' is not a number (expected e.g. 1.5, -3, 0x7f, nan, inf, true)", text));
  // Past the largest double strtod gives infinity; the dtype check would take it as the infinity it
  // now is, while a value past the dtype's own largest finite number is refused (bits()). Refused
  // here the same way. (A value below the smallest subnormal rounds to zero, as in every dtype.)
  if (errno == ERANGE && std::isinf(d))
    fail(ErrorCode::ValueOutOfRange,
         fmt::format("value '{}' is beyond the largest finite number (it would round to infinity; pass inf "
                     "explicitly if that is meant)",
                     text));
  return from_double(d);
}

namespace {

std::string describe(double f) { return fmt::format("{}", f); }

template <typename Int>
std::uint64_t int_bits(std::int64_t v, std::string_view dtype_name) {
  if (v < static_cast<std::int64_t>(std::numeric_limits<Int>::min()) ||
      (v > 0 && static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())))
    fail(ErrorCode::ValueOutOfRange, fmt::format("fill value {} is outside the range of {} [{}, {}]", v, dtype_name,
                                                 static_cast<std::int64_t>(std::numeric_limits<Int>::min()),
                                                 static_cast<std::uint64_t>(std::numeric_limits<Int>::max())));
  using U = std::make_unsigned_t<Int>;
  return static_cast<std::uint64_t>(static_cast<U>(static_cast<Int>(v)));
}

}  // namespace

std::uint64_t Scalar::bits(DType dtype) const {
  const auto dname = name(dtype);
  if (is_float(dtype)) {
    double v = 0;
    switch (kind_) {
      case Kind::Float: v = f_; break;
      case Kind::Int: v = static_cast<double>(i_); break;
      case Kind::UInt: v = static_cast<double>(u_); break;
      case Kind::Bool: v = static_cast<double>(u_); break;
    }
    if (dtype == DType::F64) {
      std::uint64_t b = 0;
      std::memcpy(&b, &v, 8);
      return b;
    }
    const auto format = dtype == DType::F16 ? detail::kF16 : dtype == DType::BF16 ? detail::kBF16 : detail::kF32;
    bool overflow = false;
    const std::uint32_t b = detail::encode_float(v, format, &overflow);
    if (overflow)
      fail(ErrorCode::ValueOutOfRange,
           fmt::format("fill value {} is beyond the largest finite {} (it would round to infinity; pass inf "
                       "explicitly if that is meant)",
                       describe(v), dname));
    return b;
  }
  // Integer and bool dtypes: the value must be a whole number in range.
  bool negative = false;
  std::uint64_t magnitude = 0;
  switch (kind_) {
    case Kind::Float:
      if (!std::isfinite(f_) || std::trunc(f_) != f_)
        fail(ErrorCode::ValueOutOfRange,
             fmt::format("fill value {} is not a whole number, so it has no {} representation", describe(f_), dname));
      if (std::fabs(f_) >= 18446744073709551616.0)
        fail(ErrorCode::ValueOutOfRange, fmt::format("fill value {} is outside the range of {}", describe(f_), dname));
      negative = f_ < 0;
      magnitude = static_cast<std::uint64_t>(std::fabs(f_));
      break;
    case Kind::Int:
      negative = i_ < 0;
      magnitude = negative ? static_cast<std::uint64_t>(-(i_ + 1)) + 1 : static_cast<std::uint64_t>(i_);
      break;
    case Kind::UInt:
    case Kind::Bool: magnitude = u_; break;
  }
  if (dtype == DType::Bool) {
    if (negative || magnitude > 1) fail(ErrorCode::ValueOutOfRange, "fill value for bool must be 0/1 or false/true");
    return magnitude;
  }
  const bool is_signed = is_signed_int(dtype);
  if (!is_signed) {
    const unsigned bits = static_cast<unsigned>(byte_width(dtype) * 8);
    const std::uint64_t max = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (negative || magnitude > max)
      fail(ErrorCode::ValueOutOfRange, fmt::format("fill value {}{} is outside the range of {} [0, {}]",
                                                   negative ? "-" : "", magnitude, dname, max));
    return magnitude;
  }
  if (magnitude > (negative ? (1ull << 63) : (1ull << 63) - 1))
    fail(ErrorCode::ValueOutOfRange,
         fmt::format("fill value {}{} is outside the range of {}", negative ? "-" : "", magnitude, dname));
  const std::int64_t v = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  switch (dtype) {
    case DType::I8: return int_bits<std::int8_t>(v, dname);
    case DType::I16: return int_bits<std::int16_t>(v, dname);
    case DType::I32: return int_bits<std::int32_t>(v, dname);
    default: return static_cast<std::uint64_t>(v);
  }
}

}  // namespace fvk
