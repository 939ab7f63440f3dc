// .npy reader and writer. Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//   "\x93NUMPY" major minor  header_len (u16 LE for 1.x, u32 LE for 2.x/3.x)  header  data
// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
#include "io/npy.hpp"

#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

#include "fvk/error.hpp"
#include "fvk/shape.hpp"

namespace fvk::io {
namespace {

static_assert(std::endian::native == std::endian::little, "npy I/O copies little-endian data as is");

constexpr std::string_view kMagic = "\x93NUMPY";

struct DescrEntry {
  std::string_view code;  // descr without its byte-order character
  DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"u1", DType::U8},  {"i1", DType::I8},  {"b1", DType::Bool}, {"i2", DType::I16},
    {"u2", DType::U16}, {"f2", DType::F16}, {"i4", DType::I32},  {"u4", DType::U32},
    {"f4", DType::F32}, {"i8", DType::I64}, {"u8", DType::U64},  {"f8", DType::F64},
};

std::string_view descr_for(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "|b1";
    case DType::U8: return "|u1";
    case DType::I8: return "|i1";
    case DType::U16: return "<u2";
    case DType::I16: return "<i2";
    case DType::F16: return "<f2";
    case DType::BF16: return "<u2";  // numpy has no bf16: the raw bits as uint16
    case DType::U32: return "<u4";
    case DType::I32: return "<i4";
    case DType::F32: return "<f4";
    case DType::U64: return "<u8";
    case DType::I64: return "<i8";
    case DType::F64: return "<f8";
  }
  fail(ErrorCode::Internal, "descr_for: unknown dtype");
}

[[noreturn]] void bad_file(const std::string& path, const std::string& why) {
  fail(ErrorCode::InvalidFile, fmt::format("{}: not a readable .npy file: {}", path, why));
}

DType parse_descr(const std::string& path, const std::string& descr) {
  if (descr.size() == 3) {
    const char order = descr[0];
    const std::string_view code = std::string_view(descr).substr(1);
    if (order == '>')
      fail(ErrorCode::UnsupportedLayout,
           fmt::format("{}: descr '{}' is big-endian; only little-endian ('<') or byte ('|') data is read "
                       "(save it with arr.astype(arr.dtype.newbyteorder('<')))",
                       path, descr));
    for (const auto& e : kDescrs) {
      if (code != e.code) continue;
      const bool one_byte = code[1] == '1';
      if (order == '<' || (order == '|' && one_byte)) return e.dtype;
    }
  }
  fail(ErrorCode::UnsupportedLayout,
       fmt::format("{}: descr '{}' is not supported; readable dtypes are |u1 |i1 |b1 <i2 <u2 <f2 <i4 <u4 <f4 "
                   "<i8 <u8 <f8",
                   path, descr));
}

// A strict parser for the one dict literal .npy headers hold.
class HeaderParser {
 public:
  HeaderParser(const std::string& path, std::string_view text) : path_(path), s_(text) {}

  void parse(std::string& descr, bool& fortran_order, Shape& shape) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip_ws();
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() == '[')
          fail(
              ErrorCode::UnsupportedLayout,
              fmt::format("{}: structured dtypes (a list descr) are not supported; save a plain numeric array", path_));
        descr = parse_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran_order = parse_bool();
        have_order = true;
      } else if (key == "shape") {
        shape = parse_tuple();
        have_shape = true;
      } else {
        bad_file(path_, fmt::format("header has unknown key '{}' (expected descr, fortran_order, shape)", key));
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != '}') bad_file(path_, fmt::format("header: expected ',' or '}}' at offset {}", pos_));
    }
    expect('}');
    skip_ws();
    if (pos_ != s_.size()) bad_file(path_, "header has text after its closing '}'");
    if (!have_descr || !have_order || !have_shape)
      bad_file(path_, "header lacks one of the keys descr, fortran_order, shape");
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) bad_file(path_, fmt::format("header: expected '{}' at offset {}", c, pos_));
    ++pos_;
  }
  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') bad_file(path_, fmt::format("header: expected a string at offset {}", pos_));
    const auto end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) bad_file(path_, "header: unterminated string");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool parse_bool() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad_file(path_, fmt::format("header: fortran_order must be True or False (offset {})", pos_));
  }
  Shape parse_tuple() {
    Shape shape;
    expect('(');
    while (true) {
      skip_ws();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        bad_file(path_, fmt::format("header: shape must be a tuple of non-negative integers (offset {})", pos_));
      std::int64_t dim = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (__builtin_mul_overflow(dim, 10, &dim) || __builtin_add_overflow(dim, peek() - '0', &dim))
          bad_file(path_, "header: a shape dim overflows 64 bits");
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literal
      shape.push_back(dim);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_ws();
      if (peek() != ')') bad_file(path_, fmt::format("header: expected ',' or ')' in shape at offset {}", pos_));
    }
    expect(')');
    return shape;
  }

  const std::string& path_;
  std::string_view s_;
  std::size_t pos_ = 0;
};

std::uint32_t read_le(const std::vector<char>& bytes, std::size_t at, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < n; ++k)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + k])) << (8 * k);
  return v;
}

}  // namespace

NpyArray read_npy(const std::string& path, std::optional<DType> two_byte_as) {
  if (two_byte_as && byte_width(*two_byte_as) != 2)
    fail(ErrorCode::InvalidArgument,
         fmt::format("two_byte_as is {}; it must be a 2-byte dtype (bf16, f16, u16, i16)", name(*two_byte_as)));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) bad_file(path, "it is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) bad_file(path, "cannot open it");
  std::vector<char> bytes;
  try {  // libstdc++'s filebuf throws where read(2) fails (EISDIR, EIO)
    bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    bad_file(path, fmt::format("read error: {}", e.what()));
  }
  if (file.bad()) bad_file(path, "read error");

  if (bytes.size() < kMagic.size() || std::string_view(bytes.data(), kMagic.size()) != kMagic)
    bad_file(path, "it does not start with the magic string \\x93NUMPY");
  if (bytes.size() < 10)
    bad_file(path, fmt::format("truncated: {} bytes, fewer than the 10 of a .npy file's version and header length",
                               bytes.size()));
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    bad_file(path, fmt::format("format version {}.{} is not one of 1.0, 2.0, 3.0", major, minor));
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) bad_file(path, "truncated header length");
  const std::size_t header_len = read_le(bytes, 8, len_bytes);
  const std::size_t data_at = 8 + len_bytes + header_len;
  if (bytes.size() < data_at)
    bad_file(path, fmt::format("truncated header: it declares {} bytes, the file holds {}", header_len,
                               bytes.size() - 8 - len_bytes));

  std::string descr;
  bool fortran_order = false;
  Shape shape;
  HeaderParser(path, std::string_view(bytes.data() + 8 + len_bytes, header_len)).parse(descr, fortran_order, shape);

  DType dtype = parse_descr(path, descr);
  if (two_byte_as && byte_width(dtype) == 2) dtype = *two_byte_as;

  const auto dense = dense_bytes(shape, byte_width(dtype));
  if (!dense)
    bad_file(path, fmt::format("shape {} of {} spans more than 2^63-1 bytes (a 0 dim counted as 1)", to_string(shape),
                               descr));
  const std::uint64_t want = *dense;
  const std::uint64_t have = bytes.size() - data_at;
  if (have < want)
    bad_file(path, fmt::format("truncated data: shape {} of {} needs {} bytes, the file holds {}", to_string(shape),
                               descr, want, have));
  if (have > want)
    bad_file(path, fmt::format("{} bytes after the data: shape {} of {} needs {} bytes, the file holds {}", have - want,
                               to_string(shape), descr, want, have));

  NpyArray array{HostTensor{dtype, shape, {}}, fortran_order};
  array.tensor.data.resize(static_cast<std::size_t>(want));
  if (want > 0) std::memcpy(array.tensor.data.data(), bytes.data() + data_at, static_cast<std::size_t>(want));
  return array;
}

void write_npy(const std::string& path, const HostTensor& t) {
  const auto want = check_dense_shape(t.shape, t.elem_bytes(), fmt::format("tensor for {}", path));
  if (t.data.size() != want)
    fail(ErrorCode::InvalidArgument, fmt::format("tensor for {} holds {} bytes but shape {} of {} needs {}", path,
                                                 t.data.size(), to_string(t.shape), name(t.dtype), want));
  std::string shape_text = "(";
  for (std::size_t a = 0; a < t.shape.size(); ++a) shape_text += fmt::format("{}{}", a ? ", " : "", t.shape[a]);
  shape_text += t.shape.size() == 1 ? ",)" : ")";
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr_for(t.dtype), shape_text);
  // Pad with spaces and end with '\n' so the data starts on a 64-byte boundary, as numpy does.
  const bool v2 = header.size() + 1 + 10 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');

  std::string out(kMagic);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back('\0');
  for (std::size_t k = 0; k < prefix - 8; ++k) out.push_back(static_cast<char>((header.size() >> (8 * k)) & 0xff));
  out += header;

  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) fail(ErrorCode::InvalidFile, fmt::format("{}: cannot open it for writing", path));
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  file.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.data.size()));
  file.close();
  if (!file) fail(ErrorCode::InvalidFile, fmt::format("{}: write failed", path));
}

}  // namespace fvk::io
