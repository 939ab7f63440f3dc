// NumPy .npy files: the format the CLI and the golden tests exchange tensors in.
#pragma once

#include <optional>
#include <string>

#include "fvk/dtype.hpp"
#include "fvk/host_tensor.hpp"

namespace fvk::io {

struct NpyArray {
  HostTensor tensor;   // shape as written in the header; data as stored in the file
  bool fortran_order;  // true: data is in Fortran (column-major) order; the caller decides what to do
};

// Reads format versions 1.0, 2.0 and 3.0 with a little-endian (or '|') descr among
//   |u1 |i1 |b1 <i2 <u2 <f2 <i4 <u4 <f4 <i8 <u8 <f8
// Rank-0 arrays read as shape {}. numpy has no bf16: pass two_byte_as = DType::BF16 (or any other
// 2-byte dtype) to read a 2-byte array's data as that dtype, bit for bit.
// Errors: InvalidFile (cannot open, bad magic/header, truncated or over-long data),
//         UnsupportedLayout (big-endian or an unsupported dtype, e.g. complex, strings, structured).
NpyArray read_npy(const std::string& path, std::optional<DType> two_byte_as = std::nullopt);

// Writes a C-order version 1.0 file (2.0 if the header would not fit). BF16 is written as '<u2'
// (its raw bits), since numpy has no bf16; read it back with two_byte_as = DType::BF16.
void write_npy(const std::string& path, const HostTensor& t);

}  // namespace fvk::io
