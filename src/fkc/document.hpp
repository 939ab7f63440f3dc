// A contract document (*.fkc.md) split into its parts: optional YAML front matter between `---`
// lines, markdown prose, and ```fkc blocks, each under a `## <kernel>` heading. Line numbers are
// kept so every later error can name file:line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fvk::fkc {

struct SourceText {
  std::string file;  // shown in errors, e.g. contracts/pad.fkc.md
  std::string text;
};

struct YamlSection {
  std::string yaml;
  int first_line = 0;  // file line of the section's first YAML line
};

struct FkcBlock {
  YamlSection body;
  std::string heading;  // first word of the `## ` heading the block sits under
  int heading_line = 0;
  std::string prose;  // markdown of that section, without the block
};

struct Document {
  std::string file;
  std::optional<YamlSection> front_matter;
  std::string preamble;  // prose before the first `## ` heading
  std::vector<FkcBlock> blocks;
};

// The byte offset of the first byte of `text` that does not begin or continue well-formed UTF-8
// (no overlong forms, surrogates or code points past U+10FFFF), or nullopt when it is all UTF-8.
std::optional<std::size_t> first_non_utf8(std::string_view text);

// Throws Error(ContractError, "file:line: ...") on text that is not UTF-8, an unterminated front
// matter or fence, a block outside a `## ` section, or two blocks in one section.
Document split_document(const SourceText& source);

}  // namespace fvk::fkc
