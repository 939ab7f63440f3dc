// What the fuzz targets count as a finding, and inputs handed to readers that take a path.
//
// The library's answer to bad input is fvk::Error with a code other than Internal ("a bug of ours")
// and a message. Anything else that escapes a target (std::out_of_range, YAML::Exception, a
// nlohmann::json exception, std::bad_alloc) reaches libFuzzer as an uncaught exception, which it
// reports as a crash; a broken property of a target aborts with "FINDING: ...".
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fvk/error.hpp"

namespace fvk::fuzz {

[[noreturn]] inline void finding(std::string_view what) {
  std::fprintf(stderr, "FINDING: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void check(bool holds, std::string_view what) {
  if (!holds) finding(what);
}

// Runs `fn`; true when it returned, false when it threw an acceptable fvk::Error.
template <typename F>
bool accepts(F&& fn) {
  try {
    fn();
    return true;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Internal) finding(std::string("input reached an Internal error: ") + e.what());
    if (e.message().empty()) finding(std::string("fvk::Error without a message: ") + e.what());
    return false;
  }
}

// An in-memory file (memfd) rewritten for every input and named by its /proc/self/fd path, so that
// readers which open a path can be fuzzed without touching the disk.
class MemFile {
 public:
  explicit MemFile(const char* name) : fd_(::memfd_create(name, 0)) {
    check(fd_ >= 0, "memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  ~MemFile() { ::close(fd_); }

  void assign(const std::uint8_t* data, std::size_t size) {
    check(::ftruncate(fd_, 0) == 0, "ftruncate failed");
    std::size_t done = 0;
    while (done < size) {
      const auto n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      check(n > 0, "pwrite failed");
      done += static_cast<std::size_t>(n);
    }
  }
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

// The input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The first `count` lines of `text` (the last one takes the rest; missing ones are empty).
inline std::vector<std::string> lines_of(std::string_view text, std::size_t count) {
  std::vector<std::string> out;
  while (out.size() + 1 < count) {
    const auto end = text.find('\n');
    if (end == std::string_view::npos) break;
    out.emplace_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  out.emplace_back(text);
  out.resize(count);
  return out;
}

}  // namespace fvk::fuzz
