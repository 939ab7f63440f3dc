// Small helpers shared by the fvk subcommands.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fvk/context.hpp"
#include "fvk/host_tensor.hpp"

namespace fvk::cli {

Context make_context(const GlobalOptions& global);
// Parses "1,2,3" into integers; InvalidArgument naming `what` on anything else.
std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what);
// Reads a C-order .npy (Fortran order refused with UnsupportedLayout); `dtype_override` "bf16"
// reads 2-byte data as bf16.
HostTensor read_tensor(const std::string& path, const std::string& dtype_override);

}  // namespace fvk::cli
