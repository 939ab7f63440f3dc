// One Vulkan context for the whole test binary (validation layer on when FVK_VALIDATION=1, as CTest
// sets it), and a fixture that fails any test during which the validation layer said something.
#pragma once

#include <gtest/gtest.h>

#include "fvk/context.hpp"
#include "ops/targets.hpp"

namespace fvk::testing {

Context& shared_context();
// A second context whose new tensors start as 0xA5 bytes (ContextOptions::poison_new_tensors), so
// that an element a kernel fails to write shows as a wrong value.
Context& poisoned_context();

// The context a target's public op dispatches its kernel on: a context opened with `options`, and
// for a portable build (contracts/portable.fkc.md) with the features it does without off as well
// (selftest::context_options). One per distinct options for the whole binary; default options give
// shared_context(), poison_new_tensors alone poisoned_context().
Context& context_for(const ops::Target& target, const ContextOptions& options = {});

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override { seen_ = shared_context().validation_messages().size(); }
  void TearDown() override {
    const auto messages = shared_context().validation_messages();
    for (std::size_t i = seen_; i < messages.size(); ++i) ADD_FAILURE() << "validation layer: " << messages[i];
  }
  Context& ctx() { return shared_context(); }

 private:
  std::size_t seen_ = 0;
};

}  // namespace fvk::testing
