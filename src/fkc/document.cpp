#include "fkc/document.hpp"

#include <fmt/format.h>

#include <sstream>
#include <string_view>

#include "fkc/source_loc.hpp"

namespace fvk::fkc {

namespace {

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The length of the well-formed UTF-8 sequence at s[i], else 0 (Unicode's table 3-7: no overlong
// forms, no surrogates, nothing past U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

// Contracts are UTF-8 text: their strings go into the canonical JSON, which the revision hash and
// `fvk contracts` serialize, and nlohmann::json throws on anything else.
void require_utf8(const std::vector<std::string>& lines, const std::string& file) {
  for (std::size_t l = 0; l < lines.size(); ++l)
    for (std::size_t i = 0; i < lines[l].size();) {
      const auto n = utf8_length(lines[l], i);
      if (n == 0)
        contract_error({file, static_cast<int>(l) + 1}, fmt::format("not UTF-8 text: byte 0x{:02X} at column {}",
                                                                    static_cast<unsigned char>(lines[l][i]), i + 1));
      i += n;
    }
}

std::string first_word(std::string_view s) {
  const auto start = s.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  s.remove_prefix(start);
  return std::string(s.substr(0, s.find_first_of(" \t")));
}

// A fence much as Markdown (CommonMark) reads one: a run of three or more backticks or tildes at the
// start of a line (unindented: our documents indent none), then an info string ("fkc" for a contract
// block), which after backticks holds no backtick (a line that opens with inline code is prose). It
// is closed only by a line of the same character, at least as long, and nothing else: a prose block
// fenced with four backticks may show a line of three (an fkc block quoted in prose) without ending
// there.
struct Fence {
  char mark = 0;
  std::size_t length = 0;  // 0: not a fence
  std::string_view info;
};

Fence fence_of(std::string_view line) {
  Fence f;
  if (line.empty() || (line[0] != '`' && line[0] != '~')) return f;
  const std::size_t n = line.find_first_not_of(line[0]);
  const std::size_t run = n == std::string_view::npos ? line.size() : n;
  if (run < 3) return f;
  if (line[0] == '`' && line.find('`', run) != std::string_view::npos) return f;  // inline code
  f.mark = line[0];
  f.length = run;
  f.info = line.substr(run);
  const auto start = f.info.find_first_not_of(" \t");
  f.info = start == std::string_view::npos ? std::string_view{} : f.info.substr(start);
  return f;
}

bool closes(std::string_view line, const Fence& open) {
  const Fence f = fence_of(line);
  return f.mark == open.mark && f.length >= open.length && f.info.empty();
}

}  // namespace

std::optional<std::size_t> first_non_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto n = utf8_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

Document split_document(const SourceText& source) {
  Document doc;
  doc.file = source.file;
  const auto lines = split_lines(source.text);
  require_utf8(lines, source.file);
  std::size_t i = 0;

  if (!lines.empty() && rtrim(lines[0]) == "---") {
    YamlSection fm;
    fm.first_line = 2;
    for (i = 1; i < lines.size() && rtrim(lines[i]) != "---"; ++i) fm.yaml += lines[i] + "\n";
    if (i == lines.size()) contract_error({source.file, 1}, "front matter opened with '---' is never closed");
    ++i;
    doc.front_matter = std::move(fm);
  }

  FkcBlock* section_block = nullptr;  // the block of the current `## ` section, if any
  std::string heading;
  int heading_line = 0;
  std::string prose;
  auto close_section = [&] {
    if (section_block)
      section_block->prose = prose;
    else if (heading.empty())
      doc.preamble = prose;
    prose.clear();
  };

  for (; i < lines.size(); ++i) {
    const std::string_view line = rtrim(lines[i]);
    const int line_no = static_cast<int>(i) + 1;
    if (line.starts_with("## ")) {
      close_section();
      heading = first_word(line.substr(3));
      heading_line = line_no;
      section_block = nullptr;
      prose += std::string(line) + "\n";
      continue;
    }
    const Fence fence = fence_of(line);
    if (fence.length == 0) {
      prose += std::string(line) + "\n";
      continue;
    }
    const bool is_fkc = fence.info == "fkc";
    if (!is_fkc) prose += std::string(line) + "\n";
    YamlSection body;
    body.first_line = line_no + 1;
    std::size_t j = i + 1;
    for (; j < lines.size() && !closes(rtrim(lines[j]), fence); ++j) {
      if (is_fkc)
        body.yaml += lines[j] + "\n";
      else
        prose += lines[j] + "\n";
    }
    if (j == lines.size()) contract_error({source.file, line_no}, "fenced block is never closed");
    if (!is_fkc) prose += std::string(rtrim(lines[j])) + "\n";
    i = j;
    if (!is_fkc) continue;
    if (heading.empty()) contract_error({source.file, line_no}, "an fkc block must sit under a '## <kernel>' heading");
    if (section_block)
      contract_error({source.file, line_no}, "one fkc block per '## ' section; section '" + heading + "' (line " +
                                                 std::to_string(heading_line) + ") already has one");
    doc.blocks.push_back({std::move(body), heading, heading_line, {}});
    section_block = &doc.blocks.back();
  }
  close_section();
  return doc;
}

}  // namespace fvk::fkc
