// Every kernel x every accepted dtype x ranks 1..8 x size-1 / odd dims x pads 0, 1 and the largest
// allowed, held against the CPU reference (bit for bit where the contract promises it).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpu_fixture.hpp"
#include "selftest/harness.hpp"

namespace fvk::selftest {
// Readable parameter names in CTest output.
void PrintTo(const Target& t, std::ostream* os) { *os << t.kernel << "/" << name(t.dtype); }
}  // namespace fvk::selftest

namespace fvk::testing {
namespace {

class KernelMatrix : public GpuTest, public ::testing::WithParamInterface<selftest::Target> {};

TEST_P(KernelMatrix, MatchesReference) {
  const auto& target = GetParam();
  Context& c_ctx = context_for(target);  // a portable build's: the features it does without off
  const std::size_t seen = c_ctx.validation_messages().size();
  if (const auto missing = selftest::missing_features(c_ctx, target); !missing.empty())
    GTEST_SKIP() << target.kernel << " needs device feature " << missing.front() << ", which this device lacks";
  for (const auto& c : selftest::cases_for(target, false)) {
    const auto o = selftest::run_case(c_ctx, target, c);
    EXPECT_TRUE(o.pass) << target.kernel << " " << name(target.dtype) << " shape " << to_string(c.shape) << ": "
                        << o.detail;
  }
  const auto messages = c_ctx.validation_messages();
  if (&c_ctx != &ctx())  // the fixture checks the shared context's
    for (std::size_t i = seen; i < messages.size(); ++i) ADD_FAILURE() << "validation layer: " << messages[i];
}

std::string target_name(const ::testing::TestParamInfo<selftest::Target>& info) {
  return fmt::format("{}_{}", info.param.kernel, name(info.param.dtype));
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelMatrix, ::testing::ValuesIn(selftest::all_targets()), target_name);

TEST(KernelMatrixCoverage, EverySpecKernelFamilyIsCovered) {
  std::set<std::string> kernels;
  for (const auto& t : selftest::all_targets()) kernels.insert(t.kernel);
  // 28 of the spec + 8 deterministic backwards + copy + 4 contiguize + 16 portable builds
  EXPECT_EQ(kernels.size(), 57u);
  for (const char* k :
       {"pad_const_b1", "pad_reflect_b8", "pad_replicate_b2", "pad_backward_const_b4", "pad_backward_reflect_f64",
        "pad_backward_replicate_bf16", "masked_fill_b8", "pad_backward_reflect_det_f16", "pad_reflect_portable_b1",
        "pad_backward_const_portable_b4", "pad_backward_replicate_det_portable_f32",
        "pad_backward_reflect_portable_f64"})
    EXPECT_TRUE(kernels.count(k)) << k;
}

}  // namespace
}  // namespace fvk::testing
