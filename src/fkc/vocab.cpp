#include "fkc/vocab.hpp"

namespace fvk::fkc {

#define FVK_FKC_DEFINE_VOCAB(E, NAME, ...)                     \
  std::string_view Vocab<E>::name() { return NAME; }           \
  std::span<const VocabEntry<E>> Vocab<E>::entries() {         \
    static constexpr VocabEntry<E> kEntries[] = {__VA_ARGS__}; \
    return kEntries;                                           \
  }

FVK_FKC_DEFINE_VOCAB(OpKind, "op kind", {OpKind::Pad, "Pad"}, {OpKind::PadBackward, "PadBackward"},
                     {OpKind::MaskedFill, "MaskedFill"}, {OpKind::Contiguize, "Contiguize"}, {OpKind::Copy, "Copy"})
FVK_FKC_DEFINE_VOCAB(LayoutAcceptance, "layout acceptance", {LayoutAcceptance::Required, "required"},
                     {LayoutAcceptance::Accepted, "accepted"}, {LayoutAcceptance::Rejected, "rejected"})
FVK_FKC_DEFINE_VOCAB(AwkwardLayoutStrategy, "awkward-layout strategy",
                     {AwkwardLayoutStrategy::RequiresContiguous, "requires_contiguous"},
                     {AwkwardLayoutStrategy::Native, "native"}, {AwkwardLayoutStrategy::Reject, "reject"})
FVK_FKC_DEFINE_VOCAB(LayoutGuarantee, "layout guarantee", {LayoutGuarantee::Contiguous, "contiguous"})
FVK_FKC_DEFINE_VOCAB(Prefill, "prefill", {Prefill::None, "none"}, {Prefill::Zero, "zero"})
FVK_FKC_DEFINE_VOCAB(Determinism, "determinism", {Determinism::Bitwise, "bitwise"},
                     {Determinism::Nondeterministic, "nondeterministic"})
FVK_FKC_DEFINE_VOCAB(CostProvenance, "cost provenance", {CostProvenance::JudgeMeasured, "judge_measured"},
                     {CostProvenance::Analytic, "analytic"})
FVK_FKC_DEFINE_VOCAB(CostClass, "cost class", {CostClass::CheapElementwise, "cheap_elementwise"},
                     {CostClass::GatherReduce, "gather_reduce"}, {CostClass::AtomicAccumulate, "atomic_accumulate"},
                     {CostClass::ComputeBound, "compute_bound"})
FVK_FKC_DEFINE_VOCAB(ParamKind, "param kind", {ParamKind::U32, "u32"}, {ParamKind::I32, "i32"}, {ParamKind::F32, "f32"},
                     {ParamKind::U64, "u64"}, {ParamKind::BufferU32, "buffer<u32>"})
FVK_FKC_DEFINE_VOCAB(BufferAccess, "buffer access", {BufferAccess::Read, "read"}, {BufferAccess::Write, "write"},
                     {BufferAccess::ReadWrite, "read_write"})
FVK_FKC_DEFINE_VOCAB(Feature, "device feature", {Feature::ShaderInt64, "shaderInt64"},
                     {Feature::ShaderFloat64, "shaderFloat64"}, {Feature::ShaderInt16, "shaderInt16"},
                     {Feature::ShaderFloat16, "shaderFloat16"}, {Feature::ShaderInt8, "shaderInt8"},
                     {Feature::StorageBuffer16BitAccess, "storageBuffer16BitAccess"},
                     {Feature::StorageBuffer8BitAccess, "storageBuffer8BitAccess"},
                     {Feature::ShaderBufferInt64Atomics, "shaderBufferInt64Atomics"},
                     {Feature::ShaderBufferFloat32AtomicAdd, "shaderBufferFloat32AtomicAdd"},
                     {Feature::ShaderBufferFloat64AtomicAdd, "shaderBufferFloat64AtomicAdd"},
                     {Feature::SubgroupBallot, "subgroupBallot"}, {Feature::SubgroupShuffle, "subgroupShuffle"})
#undef FVK_FKC_DEFINE_VOCAB

}  // namespace fvk::fkc
