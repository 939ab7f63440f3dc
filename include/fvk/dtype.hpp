// Element types. Kernels are keyed by byte width; dtype names are what users see.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace fvk {

enum class DType { Bool, U8, I8, U16, I16, F16, BF16, U32, I32, F32, U64, I64, F64 };

inline constexpr DType kAllDTypes[] = {DType::Bool, DType::U8,   DType::I8,  DType::U16, DType::I16,
                                       DType::F16,  DType::BF16, DType::U32, DType::I32, DType::F32,
                                       DType::U64,  DType::I64,  DType::F64};

std::size_t byte_width(DType dtype) noexcept;
bool is_float(DType dtype) noexcept;
bool is_signed_int(DType dtype) noexcept;
// Lower-case short name: "f32", "bf16", "bool", ...
std::string_view name(DType dtype) noexcept;
// Upper-case contract name: "F32", "BF16", "BOOL", ...
std::string_view contract_name(DType dtype) noexcept;
// Accepts either spelling, case-insensitively; nullopt when unknown.
std::optional<DType> parse_dtype(std::string_view text) noexcept;

}  // namespace fvk
