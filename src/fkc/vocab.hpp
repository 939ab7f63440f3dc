// The closed vocabularies of the contract schema. Every enumerated value a contract may hold is
// listed here once, with its spelling in the documents; anything else is a load error.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace fvk::fkc {

enum class OpKind { Pad, PadBackward, MaskedFill, Contiguize, Copy };

// How an input treats one layout feature.
enum class LayoutAcceptance { Required, Accepted, Rejected };

// What the planner does with a layout the kernel cannot read directly.
enum class AwkwardLayoutStrategy {
  RequiresContiguous,  // planner inserts a Contiguize kernel first and sums its cost
  Native,              // the kernel walks the strides itself
  Reject,              // no rescue: the request is refused
};

enum class LayoutGuarantee { Contiguous };

enum class Aliasing {
  None,        // output is written in full, fresh
  Accumulate,  // kernel read-modify-writes its target; the wrapper pre-fills it (prefill: zero)
};

enum class Prefill { None, Zero };

enum class Determinism {
  Bitwise,           // same input, same device: byte-identical output
  Nondeterministic,  // run-to-run differences possible (documented in precision.notes)
};

enum class CostProvenance { JudgeMeasured, Analytic };

enum class CostClass { CheapElementwise, GatherReduce, AtomicAccumulate, ComputeBound };

// Types of op_params fields: scalars travel in the push-constant block, buffers are bindings.
enum class ParamKind { U32, I32, F32, U64, BufferU32 };

enum class BufferAccess { Read, Write, ReadWrite };

// Vulkan device features a kernel needs beyond Vulkan 1.2 core, by their VkPhysicalDevice*Features
// member names.
enum class Feature {
  ShaderInt64,
  ShaderFloat64,
  ShaderInt16,
  ShaderFloat16,
  ShaderInt8,
  StorageBuffer16BitAccess,
  StorageBuffer8BitAccess,
  ShaderBufferInt64Atomics,
  ShaderBufferFloat32AtomicAdd,
  ShaderBufferFloat64AtomicAdd,
  SubgroupBallot,   // VkPhysicalDeviceSubgroupProperties: ballot operations in compute shaders
  SubgroupShuffle,  // and shuffle operations
};

template <class E>
struct VocabEntry {
  E value;
  std::string_view spelling;
};

// Each vocabulary: its name (for messages) and its entries.
template <class E>
struct Vocab;

#define FVK_FKC_DECLARE_VOCAB(E)                     \
  template <>                                        \
  struct Vocab<E> {                                  \
    static std::string_view name();                  \
    static std::span<const VocabEntry<E>> entries(); \
  };

FVK_FKC_DECLARE_VOCAB(OpKind)
FVK_FKC_DECLARE_VOCAB(LayoutAcceptance)
FVK_FKC_DECLARE_VOCAB(AwkwardLayoutStrategy)
FVK_FKC_DECLARE_VOCAB(LayoutGuarantee)
FVK_FKC_DECLARE_VOCAB(Prefill)
FVK_FKC_DECLARE_VOCAB(Determinism)
FVK_FKC_DECLARE_VOCAB(CostProvenance)
FVK_FKC_DECLARE_VOCAB(CostClass)
FVK_FKC_DECLARE_VOCAB(ParamKind)
FVK_FKC_DECLARE_VOCAB(BufferAccess)
FVK_FKC_DECLARE_VOCAB(Feature)
#undef FVK_FKC_DECLARE_VOCAB

template <class E>
std::string_view to_string(E value) {
  for (const auto& e : Vocab<E>::entries())
    if (e.value == value) return e.spelling;
  return "?";
}

template <class E>
std::optional<E> parse_vocab(std::string_view text) {
  for (const auto& e : Vocab<E>::entries())
    if (e.spelling == text) return e.value;
  return std::nullopt;
}

// "a, b, c" — for error messages listing the allowed values.
template <class E>
std::string spellings() {
  std::string out;
  for (const auto& e : Vocab<E>::entries()) {
    if (!out.empty()) out += ", ";
    out += e.spelling;
  }
  return out;
}

}  // namespace fvk::fkc
