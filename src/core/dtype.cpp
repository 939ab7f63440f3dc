#include "fvk/dtype.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace fvk {
namespace {

struct DTypeInfo {
  DType dtype;
  std::size_t bytes;
  std::string_view name;
  std::string_view contract;
};

constexpr DTypeInfo kInfo[] = {
    {DType::Bool, 1, "bool", "BOOL"}, {DType::U8, 1, "u8", "U8"},    {DType::I8, 1, "i8", "I8"},
    {DType::U16, 2, "u16", "U16"},    {DType::I16, 2, "i16", "I16"}, {DType::F16, 2, "f16", "F16"},
    {DType::BF16, 2, "bf16", "BF16"}, {DType::U32, 4, "u32", "U32"}, {DType::I32, 4, "i32", "I32"},
    {DType::F32, 4, "f32", "F32"},    {DType::U64, 8, "u64", "U64"}, {DType::I64, 8, "i64", "I64"},
    {DType::F64, 8, "f64", "F64"},
};

const DTypeInfo& info(DType dtype) noexcept {
  return *std::find_if(std::begin(kInfo), std::end(kInfo), [&](const DTypeInfo& i) { return i.dtype == dtype; });
}

}  // namespace

std::size_t byte_width(DType dtype) noexcept { return info(dtype).bytes; }
std::string_view name(DType dtype) noexcept { return info(dtype).name; }
std::string_view contract_name(DType dtype) noexcept { return info(dtype).contract; }

bool is_float(DType dtype) noexcept {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 || dtype == DType::F64;
}

bool is_signed_int(DType dtype) noexcept {
  return dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
}

std::optional<DType> parse_dtype(std::string_view text) noexcept {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& i : kInfo)
    if (lower == i.name) return i.dtype;
  return std::nullopt;
}

}  // namespace fvk
