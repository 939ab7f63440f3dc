// Small helpers shared by the fvk subcommands.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fvk/context.hpp"
#include "fvk/host_tensor.hpp"
#include "fvk/tensor_view.hpp"

namespace fvk::cli {

ContextOptions context_options(const GlobalOptions& global);
Context make_context(const GlobalOptions& global);
// The validation layer's messages on a command's device (FVK_VALIDATION=1, FVK_CHECK_BOUNDS=1; none
// are collected otherwise), each printed to stderr once the command ends, so that a run the layer
// flagged never looks clean. Made right after the Context (and so destroyed before it): a command
// that ends by returning gets its exit code from exit_code(); one that ends by throwing has the
// messages printed on the way out, before main prints the error.
class ValidationReport {
 public:
  explicit ValidationReport(const Context& ctx) : ctx_(ctx) {}
  ValidationReport(const ValidationReport&) = delete;
  ValidationReport& operator=(const ValidationReport&) = delete;
  ~ValidationReport();
  bool any() const { return !ctx_.validation_messages().empty(); }
  // Prints the messages; returns `rc`, or 1 where rc is 0 and there were messages.
  int exit_code(int rc = 0);

 private:
  std::size_t print() const;
  const Context& ctx_;
  bool printed_ = false;
};
// Refuses an output path that cannot be written before the work, not after (InvalidFile naming
// `flag` and the path): opens it for appending, which changes nothing, and removes it again if it
// was not there. `make_folder`: create its folder first, as the writer will (the cost table's).
// An empty path passes (nothing will be written).
void check_writable(const std::string& path, const std::string& flag, bool make_folder = false);
// InvalidArgument naming the first of `flags` given to `sub`: options that do not apply to what the
// command was asked to do are refused, not silently ignored. `why`: "with --mode reflect" and the like.
void refuse_unused(const CLI::App& sub, std::initializer_list<const char*> flags, const std::string& why);
// A signed 64-bit integer, checked on the text (CLI11 clamps a larger one to the limit, and the error
// that follows then quotes a number the user never typed).
extern const CLI::Validator kInt64;
// Whether a --value text is zero (0, 0.0, -0, false): a fill a mode without fill may be given, as
// torch.nn.functional.pad lets value=0 through for every mode. Unparsable text is not zero.
bool is_zero_value(const std::string& text);
// Parses "1,2,3" into integers; InvalidArgument naming `what` on anything else.
std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what);
// --kernel FILTER of selftest, bench and judge: InvalidArgument before any work when the filter is
// given and matches none of `kernels` (the ones the command runs, repeats allowed), instead of an
// empty run.
void require_kernel_match(const std::string& filter, const std::vector<std::string>& kernels);
// Reads a C-order .npy (Fortran order refused with UnsupportedLayout); `dtype_override` "bf16"
// reads 2-byte data as bf16.
HostTensor read_tensor(const std::string& path, const std::string& dtype_override);

// A .npy of either order, its data as stored: what the planned commands take.
struct NpyInput {
  std::string path;
  HostTensor tensor;  // shape from the header, data in file order
  bool fortran_order = false;
};
NpyInput read_input(const std::string& path, const std::string& dtype_override);
// Uploads the file's bytes unchanged and views them: C order dense, Fortran order as a strided view
// with column-major strides (realized on the device by the planner's Contiguize step).
TensorView upload_view(Context& ctx, const NpyInput& input);

}  // namespace fvk::cli
