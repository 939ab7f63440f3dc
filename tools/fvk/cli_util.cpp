#include "cli_util.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "core/link_target.hpp"
#include "fvk/error.hpp"
#include "fvk/scalar.hpp"
#include "io/npy.hpp"
#include "judge/bench.hpp"

namespace fvk::cli {

ContextOptions context_options(const GlobalOptions& global) {
  ContextOptions options;
  options.device = global.device;
  return options;
}

Context make_context(const GlobalOptions& global) { return Context(context_options(global)); }

std::size_t ValidationReport::print() const {
  const auto messages = ctx_.validation_messages();
  for (const auto& m : messages) fmt::print(stderr, "validation: {}\n", m);
  if (!messages.empty())
    fmt::print(stderr, "{} validation message{} (see above): the run is not clean\n", messages.size(),
               messages.size() == 1 ? "" : "s");
  return messages.size();
}

int ValidationReport::exit_code(int rc) {
  printed_ = true;
  const std::size_t n = print();
  return rc != 0 || n == 0 ? rc : 1;
}

ValidationReport::~ValidationReport() {
  if (printed_) return;
  try {
    print();
  } catch (...) {  // a destructor, maybe on an exception's way out: nothing may escape
  }
}

void check_writable(const std::string& path, const std::string& flag, bool make_folder) {
  if (path.empty()) return;
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (make_folder && !parent.empty()) std::filesystem::create_directories(parent, ec);
  const bool existed = std::filesystem::exists(path, ec);
  {
    std::ofstream f(path, std::ios::app);
    if (!f)
      fail(ErrorCode::InvalidFile,
           fmt::format("{} {}: cannot write there (is its folder missing, not writable, or is it a folder?)", flag,
                       path));
  }
  // What the open made goes again: the file, not a link to it (a dangling link stays a link).
  if (!existed) std::filesystem::remove(link_target(path), ec);
}

const CLI::Validator kInt64(
    [](const std::string& text) {
      std::int64_t v = 0;
      const bool plus = text.starts_with('+');  // "+5", as CLI11 itself reads it
      const std::string_view digits = std::string_view(text).substr(plus ? 1 : 0);
      if (plus && digits.starts_with('-')) return text + " is not an integer";
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec == std::errc() && ptr == digits.data() + digits.size()) return std::string();
      return ec == std::errc::result_out_of_range && ptr == digits.data() + digits.size()
                 ? text + " is out of range: it must fit a signed 64-bit integer"
                 : text + " is not an integer";
    },
    "INT64");

bool is_zero_value(const std::string& text) {
  try {
    return (Scalar::parse(text).bits(DType::F64) << 1) == 0;  // +0 or -0
  } catch (const Error&) {
    return false;
  }
}

void refuse_unused(const CLI::App& sub, std::initializer_list<const char*> flags, const std::string& why) {
  for (const char* flag : flags)
    if (sub.count(flag) > 0)
      fail(ErrorCode::InvalidArgument, fmt::format("{} does not apply {}: leave it out", flag, why));
}

std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec == std::errc::result_out_of_range && ptr == item.data() + item.size())
      fail(
          ErrorCode::ValueOutOfRange,
          fmt::format("{} '{}': '{}' is out of range: every value must fit a signed 64-bit integer", what, text, item));
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size())
      fail(ErrorCode::InvalidArgument,
           fmt::format("{} '{}': '{}' is not an integer (expected a comma-separated list like 1,1,2,2)", what, text,
                       item));
    out.push_back(v);
    start = end + 1;
  }
  return out;
}

void require_kernel_match(const std::string& filter, const std::vector<std::string>& kernels) {
  if (filter.empty()) return;
  std::vector<std::string> names;  // in order, each once
  for (const auto& k : kernels) {
    if (judge::matches_filter(k, filter)) return;
    if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  }
  fail(ErrorCode::InvalidArgument,
       fmt::format("--kernel '{}' matches none of the kernels this command runs: give comma-separated words, each part "
                   "of one of {}",
                   filter, fmt::join(names, ", ")));
}

namespace {
std::optional<DType> two_byte_override(const std::string& dtype_override) {
  std::optional<DType> two_byte_as;
  if (!dtype_override.empty()) {
    const auto d = parse_dtype(dtype_override);
    if (!d)
      fail(ErrorCode::InvalidArgument,
           fmt::format("--dtype '{}' is no dtype fvk knows; it takes bf16, f16, i16 or u16", dtype_override));
    if (byte_width(*d) != 2)
      fail(ErrorCode::InvalidArgument,
           fmt::format("--dtype '{}': only a 2-byte dtype (bf16, f16, i16, u16) can reinterpret a file",
                       dtype_override));
    two_byte_as = d;
  }
  return two_byte_as;
}

// The file with --dtype applied; a --dtype given for data that is not 2 bytes wide is refused, not
// ignored.
io::NpyArray read_with_override(const std::string& path, const std::string& dtype_override) {
  const auto two_byte_as = two_byte_override(dtype_override);
  auto arr = io::read_npy(path, two_byte_as);
  if (two_byte_as && arr.tensor.dtype != *two_byte_as)
    fail(ErrorCode::InvalidArgument,
         fmt::format("--dtype {}: {} holds {} data ({} bytes an element); --dtype reinterprets 2-byte data only",
                     dtype_override, path, name(arr.tensor.dtype), byte_width(arr.tensor.dtype)));
  return arr;
}
}  // namespace

NpyInput read_input(const std::string& path, const std::string& dtype_override) {
  auto arr = read_with_override(path, dtype_override);
  return {path, std::move(arr.tensor), arr.fortran_order};
}

TensorView upload_view(Context& ctx, const NpyInput& input) {
  const Tensor stored = ctx.upload(input.tensor);
  if (!input.fortran_order) return TensorView(stored);
  return TensorView(stored, input.tensor.shape, column_major_strides(input.tensor.shape), 0, input.path);
}

HostTensor read_tensor(const std::string& path, const std::string& dtype_override) {
  auto arr = read_with_override(path, dtype_override);
  if (arr.fortran_order)
    fail(ErrorCode::UnsupportedLayout,
         fmt::format("{} is stored in Fortran order; fvk reads C-order .npy files (np.ascontiguousarray first)", path));
  return std::move(arr.tensor);
}

}  // namespace fvk::cli
