#include "core/link_target.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "fvk/error.hpp"

namespace fvk {

std::string link_target(const std::string& path) {
  std::filesystem::path p = path;
  std::error_code ec;
  for (int hops = 0; std::filesystem::is_symlink(p, ec); ++hops) {  // (a missing path is no link)
    if (hops == 40) fail(ErrorCode::InvalidFile, fmt::format("{}: more than 40 links in a chain", path));
    std::filesystem::path next = std::filesystem::read_symlink(p, ec);
    if (ec)
      fail(ErrorCode::InvalidFile, fmt::format("{}: cannot read the link {}: {}", path, p.string(), ec.message()));
    p = (next.is_relative() ? p.parent_path() / next : next).lexically_normal();
  }
  return p.string();
}

}  // namespace fvk
