// One way for a test to expect an fvk::Error: the code is checked here, as STYLE.md asks tests to
// assert on the code; the message is handed back so that a test can also check that it names the
// argument and the rule (EXPECT_THAT(message, ::testing::HasSubstr(...))).
#pragma once

#include <gtest/gtest.h>

#include <source_location>
#include <string>
#include <utility>

#include "fvk/error.hpp"

namespace fvk::testing {

// Runs `fn` and expects it to throw Error with `code`: a wrong code or nothing thrown fails the
// test (non-fatally), with a trace naming the caller's line. Returns the error's message, or ""
// when nothing was thrown. Any other exception propagates and fails the test on its own.
template <typename F>
std::string expect_error(ErrorCode code, F&& fn, std::source_location where = std::source_location::current()) {
  const ::testing::ScopedTrace trace(where.file_name(), static_cast<int>(where.line()), "expect_error");
  try {
    std::forward<F>(fn)();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << "expected " << to_string(code) << ", got " << to_string(e.code()) << ": " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected fvk::Error " << to_string(code) << ", nothing was thrown";
  return {};
}

}  // namespace fvk::testing
