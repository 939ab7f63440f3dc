// Which passes get the rank as specialization constant 1 (ops/rank_constant.cpp): the measured rule,
// entry by entry, since the kernels trust what it gives them.
#include <gtest/gtest.h>

#include "ops/rank_constant.hpp"
#include "ops/targets.hpp"

namespace fvk::testing {
namespace {

using ops::rank_constant;

TEST(RankConstant, DeterministicBackwardLeavesOutTheMultiRowPassAndTheWidePasses) {
  for (const char* k :
       {"pad_backward_reflect_det_f16", "pad_backward_replicate_det_f32", "pad_backward_replicate_det_portable_f32"}) {
    for (std::uint32_t rank = 1; rank <= 4; ++rank) {
      EXPECT_EQ(rank_constant(k, 3, rank), 0u) << k << " rank " << rank;  // miscompiled on the H200
      EXPECT_EQ(rank_constant(k, 8, rank), 0u) << k << " rank " << rank;
      EXPECT_EQ(rank_constant(k, 5, rank), rank) << k << " rank " << rank;
      EXPECT_EQ(rank_constant(k, 4, rank), rank) << k << " rank " << rank;
    }
    EXPECT_EQ(rank_constant(k, 7, 3), 3u) << k;
    EXPECT_EQ(rank_constant(k, 10, 3), 3u) << k;
    EXPECT_EQ(rank_constant(k, 7, 4), 4u) << k;
    EXPECT_EQ(rank_constant(k, 10, 4), 0u) << k;
    EXPECT_EQ(rank_constant(k, 1, 5), 0u) << k;
  }
}

TEST(RankConstant, PadKernelsLeaveOutTheirWidePasses) {
  EXPECT_EQ(rank_constant("pad_const_b1", 6, 4), 4u);
  EXPECT_EQ(rank_constant("pad_backward_const_portable_b2", 1, 4), 4u);
  EXPECT_EQ(rank_constant("pad_reflect_b4", 6, 2), 2u);
  EXPECT_EQ(rank_constant("pad_reflect_portable_b1", 6, 3), 3u);
  for (std::uint32_t pass : {1u, 4u, 5u, 6u}) {
    EXPECT_EQ(rank_constant("pad_reflect_b8", pass, 4), 0u) << pass;
    EXPECT_EQ(rank_constant("pad_reflect_b8", pass, 3), 3u) << pass;
  }
  EXPECT_EQ(rank_constant("pad_reflect_b2", 2, 4), 4u);
  EXPECT_EQ(rank_constant("pad_replicate_b2", 6, 3), 3u);
  EXPECT_EQ(rank_constant("pad_replicate_b2", 6, 4), 0u);
  EXPECT_EQ(rank_constant("pad_replicate_b1", 1, 4), 0u);
  EXPECT_EQ(rank_constant("pad_replicate_portable_b1", 1, 4), 0u);
  EXPECT_EQ(rank_constant("pad_replicate_b2", 1, 4), 4u);
  EXPECT_EQ(rank_constant("pad_replicate_b1", 1, 3), 3u);
  EXPECT_EQ(rank_constant("pad_const_b4", 2, 5), 0u);  // ranks over 4: not measured
  EXPECT_EQ(rank_constant("pad_const_b4", 2, 0), 0u);
}

TEST(RankConstant, OtherKernelsHaveNone) {
  for (const auto& t : ops::all_targets()) {
    const bool takes_it = t.kernel.starts_with("pad_const_") || t.kernel.starts_with("pad_reflect_") ||
                          t.kernel.starts_with("pad_replicate_") || t.kernel.starts_with("pad_backward_const_") ||
                          t.kernel.find("_det") != std::string::npos;
    EXPECT_EQ(rank_constant(t.kernel, 0, 2), takes_it ? 2u : 0u) << t.kernel;
  }
}

}  // namespace
}  // namespace fvk::testing
