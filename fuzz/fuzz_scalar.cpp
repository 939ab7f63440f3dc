// Fill values (fvk/scalar.hpp): Scalar::parse as `--value` reaches it, then its bit pattern in every
// dtype. Properties of an accepted text: it holds no NUL (a C-string parse would stop there and
// take a prefix), and a plain decimal integer (leading zeros too: not octal) keeps its value in i64
// and u64.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "fvk/dtype.hpp"
#include "fvk/scalar.hpp"

namespace {

// The value of "[+-]?[0-9]+" as a decimal that fits in `Int`, else nullopt.
template <typename Int>
std::optional<Int> plain_decimal(std::string_view text) {
  const bool plus = text.starts_with('+');
  const auto number = plus ? text.substr(1) : text;
  const auto digits = number.starts_with('-') && !plus ? number.substr(1) : number;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  Int v{};
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || end != number.data() + number.size()) return std::nullopt;
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fvk::fuzz::as_text(data, size);
  std::optional<fvk::Scalar> value;
  if (!fvk::fuzz::accepts([&] { value = fvk::Scalar::parse(text); })) return 0;
  fvk::fuzz::check(text.find('\0') == std::string_view::npos,
                   "Scalar::parse accepted a text with a NUL in it: " + std::string(text));
  for (const fvk::DType dtype : fvk::kAllDTypes) {
    std::optional<std::uint64_t> bits;
    try {
      bits = value->bits(dtype);
    } catch (const fvk::Error& e) {
      fvk::fuzz::check(e.code() == fvk::ErrorCode::ValueOutOfRange,
                       std::string("bits() threw another code than ValueOutOfRange: ") + e.what());
    }
    if (dtype == fvk::DType::I64)
      if (const auto v = plain_decimal<std::int64_t>(text))
        fvk::fuzz::check(bits && *bits == static_cast<std::uint64_t>(*v), "i64 bits differ for " + std::string(text));
    if (dtype == fvk::DType::U64)
      if (const auto v = plain_decimal<std::uint64_t>(text))
        fvk::fuzz::check(bits && *bits == *v, "u64 bits differ for " + std::string(text));
  }
  return 0;
}
