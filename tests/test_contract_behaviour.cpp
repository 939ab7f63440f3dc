// Contracts held against behaviour, generated from the contracts themselves: every declared dtype is
// what the wrapper accepts and matches the reference; every undeclared dtype of the kernel's width is
// refused; the declared rank range holds at its ends and is refused just outside; every kernel whose
// contract says `determinism: bitwise` gives byte-identical output over repeated runs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "expect_error.hpp"
#include "fkc/catalog.hpp"
#include "fvk/error.hpp"
#include "fvk/ops.hpp"
#include "gpu_fixture.hpp"
#include "ops/targets.hpp"
#include "reference/random_tensor.hpp"
#include "selftest/harness.hpp"

namespace fvk::testing {
namespace {

bool exercised_by_ops(const fkc::Contract& c) {
  return c.op_kind == fkc::OpKind::Pad || c.op_kind == fkc::OpKind::PadBackward ||
         c.op_kind == fkc::OpKind::MaskedFill || c.op_kind == fkc::OpKind::Copy;
}

std::vector<const fkc::Contract*> op_contracts() {
  std::vector<const fkc::Contract*> out;
  for (const auto& c : fkc::shipped_contracts().contracts)
    if (exercised_by_ops(c)) out.push_back(&c);
  return out;
}

std::set<DType> wrapper_dtypes(const std::string& kernel) {
  std::set<DType> out;
  for (const auto& t : ops::all_targets())
    if (t.kernel == kernel) out.insert(t.dtype);
  return out;
}

// Why a target cannot run here ("" when it can): a fast build needs a feature this device lacks
// (the f64 atomic add on lavapipe), and its public op would dispatch its portable build instead.
std::string cannot_run(const ops::Target& t) {
  const auto missing = selftest::missing_features(context_for(t), t);
  return missing.empty() ? std::string()
                         : fmt::format("{} needs {}, which this device lacks", t.kernel, missing.front());
}

class ContractBehaviour : public GpuTest, public ::testing::WithParamInterface<const fkc::Contract*> {};

TEST_P(ContractBehaviour, DeclaredDTypesAreExactlyWhatTheWrapperRuns) {
  const auto& c = *GetParam();
  const auto& declared = c.data_input().dtypes;
  EXPECT_EQ(std::set<DType>(declared.begin(), declared.end()), wrapper_dtypes(c.kernel)) << c.kernel;
}

TEST_P(ContractBehaviour, EveryDeclaredDTypeMatchesTheReference) {
  const auto& c = *GetParam();
  for (const auto& t : ops::all_targets()) {
    if (t.kernel != c.kernel) continue;
    if (const auto why = cannot_run(t); !why.empty()) GTEST_SKIP() << why;
    const auto cases = selftest::cases_for(t, false);
    for (std::size_t i = 0; i < cases.size(); i += 5) {  // a spread of ranks is enough here
      const auto o = selftest::run_case(context_for(t), t, cases[i]);
      EXPECT_TRUE(o.pass) << c.kernel << " " << name(t.dtype) << ": " << o.detail;
    }
  }
}

TEST_P(ContractBehaviour, UndeclaredDTypesAreRefused) {
  const auto& c = *GetParam();
  if (c.op_kind == fkc::OpKind::Copy) GTEST_SKIP() << "copy_b4 has no public op";
  const std::set<DType> declared(c.data_input().dtypes.begin(), c.data_input().dtypes.end());
  const auto t = ops::all_targets();
  const auto target = std::find_if(t.begin(), t.end(), [&](const auto& x) { return x.kernel == c.kernel; });
  ASSERT_NE(target, t.end());
  Context& cx = context_for(*target);  // a portable build's: the features it does without off
  for (const DType d : kAllDTypes) {
    if (declared.count(d) || byte_width(d) != c.element_bytes) continue;
    // A sibling kernel of the family (same op, mode, algorithm) may take it: then it is routed there.
    const bool sibling = std::any_of(t.begin(), t.end(), [&](const auto& x) {
      return x.op == target->op && x.mode == target->mode && x.algorithm == target->algorithm && x.dtype == d;
    });
    if (sibling) continue;
    // Same width, not declared: the wrapper must refuse it (it would route it to this kernel's width).
    const Tensor in = cx.upload(HostTensor::zeros(d, {4, 6}));
    SCOPED_TRACE(fmt::format("{} with undeclared dtype {}", c.kernel, name(d)));
    expect_error(ErrorCode::DTypeNotAccepted, [&] {
      if (target->op == ops::Op::PadBackward)
        pad_backward(cx, in, PadSpec{target->mode, {0, 1}, {0, 1}}, target->algorithm);
      else if (target->op == ops::Op::Pad)
        pad(cx, in, PadSpec{target->mode, {0, 1}, {0, 1}});
      else
        masked_fill(cx, in, cx.upload(HostTensor::zeros(DType::Bool, {4, 6})), Scalar::from_int(0));
    });
  }
}

TEST_P(ContractBehaviour, DeclaredRankRangeHolds) {
  const auto& c = *GetParam();
  const auto& rank = c.data_input().rank;
  if (rank.any || c.op_kind == fkc::OpKind::Copy) GTEST_SKIP() << c.kernel << " takes any rank";
  const auto t = ops::all_targets();
  const auto target = *std::find_if(t.begin(), t.end(), [&](const auto& x) { return x.kernel == c.kernel; });
  if (const auto why = cannot_run(target); !why.empty()) GTEST_SKIP() << why;
  Context& cx = context_for(target);
  auto run = [&](std::uint32_t r) {
    const Shape shape(r, 5);  // grad_out of 5 with pads (1, 1) leaves 3 for a reflect input
    std::vector<std::int64_t> l(r, 0), rr(r, 0);
    if (r > 0) l.back() = rr.back() = 1;
    const Tensor in = cx.upload(HostTensor::zeros(target.dtype, shape));
    if (target.op == ops::Op::PadBackward)
      pad_backward(cx, in, PadSpec{target.mode, l, rr}, target.algorithm);
    else
      pad(cx, in, PadSpec{target.mode, l, rr});
  };
  EXPECT_NO_THROW(run(rank.min)) << c.kernel;
  EXPECT_NO_THROW(run(rank.max)) << c.kernel;
  for (std::uint32_t r : {rank.min - 1, rank.max + 1}) {
    SCOPED_TRACE(fmt::format("{} at rank {}", c.kernel, r));
    expect_error(ErrorCode::RankOutOfRange, [&] { run(r); });
  }
}

TEST_P(ContractBehaviour, BitwiseKernelsRepeatByteForByte) {
  const auto& c = *GetParam();
  if (c.determinism != fkc::Determinism::Bitwise) GTEST_SKIP() << c.kernel << " is not bitwise";
  if (c.op_kind == fkc::OpKind::Copy) GTEST_SKIP() << "copy_b4 has no public op";
  const auto t = ops::all_targets();
  const auto target = *std::find_if(t.begin(), t.end(), [&](const auto& x) { return x.kernel == c.kernel; });
  Context& cx = context_for(target);
  std::mt19937_64 rng(99);
  const Shape shape{3, 17, 29};
  const PadSpec spec{target.mode, {0, 2, 3}, {0, 4, 1}};
  HostTensor first;
  for (int rep = 0; rep < 3; ++rep) {
    HostTensor got;
    if (target.op == ops::Op::PadBackward) {
      const HostTensor g = byte_width(target.dtype) && target.mode != PadMode::Constant
                               ? ref::random_values(target.dtype, {3, 23, 33}, rng)
                               : ref::random_bits(target.dtype, {3, 23, 33}, rng);
      if (rep == 0) first = g;  // the same input every time
      got = cx.download(pad_backward(cx, cx.upload(rep == 0 ? g : first), spec, target.algorithm));
    } else if (target.op == ops::Op::Pad) {
      const HostTensor in = ref::random_bits(target.dtype, shape, rng);
      if (rep == 0) first = in;
      got = cx.download(pad(cx, cx.upload(first), spec, Scalar::from_int(1)));
    } else {
      const HostTensor in = ref::random_bits(target.dtype, shape, rng);
      if (rep == 0) first = in;
      std::mt19937_64 mask_rng(5);
      got = cx.download(
          masked_fill(cx, cx.upload(first), cx.upload(ref::random_mask(shape, 0.5, mask_rng)), Scalar::from_int(1)));
    }
    static HostTensor reference_output;
    if (rep == 0)
      reference_output = got;
    else
      EXPECT_EQ(got.data, reference_output.data) << c.kernel << " run " << rep;
  }
}

std::string contract_name_of(const ::testing::TestParamInfo<const fkc::Contract*>& info) { return info.param->kernel; }

INSTANTIATE_TEST_SUITE_P(Shipped, ContractBehaviour, ::testing::ValuesIn(op_contracts()), contract_name_of);

}  // namespace
}  // namespace fvk::testing
