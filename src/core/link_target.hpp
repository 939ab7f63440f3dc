// The file a path names once its symbolic links are followed, dangling ones included (where
// std::filesystem::weakly_canonical stops at a link whose target does not exist yet).
#pragma once

#include <string>

namespace fvk {

// `path` itself where it is no link; else the end of its chain of links (at most 40, as the
// kernel's limit), relative targets taken from the link's folder. InvalidFile naming `path` when a
// link cannot be read or the chain is longer.
std::string link_target(const std::string& path);

}  // namespace fvk
