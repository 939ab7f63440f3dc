// The typed contract model: what one ```fkc block says about one kernel, after the strict loader
// has checked it. The planner and the wrappers decide from these records only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fkc/formula.hpp"
#include "fkc/source_loc.hpp"
#include "fkc/vocab.hpp"
#include "fvk/dtype.hpp"

namespace fvk::fkc {

// The provider front matter: one per contract set.
struct Provider {
  int fkc_version = 1;
  std::string name;
  std::string backend;
  std::string kernel_source;
  std::string link_registry;  // C++ symbol of the link registry, e.g. fvk::fkc::ENTRY_POINTS
  std::string revision_base;  // folded into every kernel_revision_hash
  SourceLoc loc;
};

struct RankRange {
  bool any = false;
  std::uint32_t min = 0, max = 0;  // inclusive; meaningful when !any
  bool contains(std::uint32_t rank) const { return any || (rank >= min && rank <= max); }
  std::string str() const;  // "any" or "1..=8"
};

// Acceptance of each layout feature of an input view.
struct LayoutRule {
  LayoutAcceptance contiguous = LayoutAcceptance::Required;
  LayoutAcceptance strided = LayoutAcceptance::Rejected;
  LayoutAcceptance broadcast_stride0 = LayoutAcceptance::Rejected;
  LayoutAcceptance start_offset = LayoutAcceptance::Rejected;
  LayoutAcceptance reverse_strides = LayoutAcceptance::Rejected;
  // True when any non-contiguous feature is accepted.
  bool accepts_awkward() const;
};

// One clause of `shape_constraint`: "same_rank=X", "same_as=X" or "element_count == SYMBOL".
struct ShapeClause {
  enum class Kind { SameRank, SameAs, ElementCount } kind;
  std::string target;  // an input/output name, or a formula symbol for ElementCount
  std::string str() const;
};

struct InputSpec {
  std::string name;
  std::vector<DType> dtypes;
  LayoutRule layout;
  RankRange rank;
  std::vector<ShapeClause> shape_constraint;
  SourceLoc loc;
  bool accepts(DType dtype) const;
};

struct ParamField {
  std::string name;
  ParamKind kind = ParamKind::U32;
  std::optional<std::string> constraint;  // documentation: a relation the wrapper guarantees
  std::optional<std::string> note;
  std::vector<std::string> parts;    // buffer<u32> only: its sections in order, e.g. in_shape
  std::uint32_t push_bytes() const;  // bytes in the push-constant block; 0 for buffers
};

struct OpParams {
  OpKind variant = OpKind::Pad;
  std::vector<ParamField> fields;  // scalars in push-constant order
  const ParamField* find(std::string_view name) const;
};

// dtype_rule: passthrough(INPUT) or fixed(DTYPE).
struct DTypeRule {
  enum class Kind { Passthrough, Fixed } kind = Kind::Passthrough;
  std::string input;        // Passthrough
  DType fixed = DType::U8;  // Fixed
  std::string str() const;
};

// shape_rule: from_params(PART) or same_as(INPUT).
struct ShapeRule {
  enum class Kind { FromParams, SameAs } kind = Kind::SameAs;
  std::string ref;
  std::string str() const;
};

struct OutputSpec {
  std::string name;
  DTypeRule dtype_rule;
  ShapeRule shape_rule;
  LayoutGuarantee layout_guarantee = LayoutGuarantee::Contiguous;
  Aliasing aliasing = Aliasing::None;
  std::string aliasing_target;       // Accumulate: the buffer read-modify-written (this output)
  Prefill prefill = Prefill::None;   // what the wrapper writes into the output before dispatch
  std::string aliasing_str() const;  // "none" or "accumulate(grad_in)"
  SourceLoc loc;
};

struct Caps {
  AwkwardLayoutStrategy awkward_layout_strategy = AwkwardLayoutStrategy::RequiresContiguous;
  std::vector<std::string> fast_paths;
  bool in_place = false;
  std::uint32_t alignment_bytes = 4;
  std::uint32_t access_granularity_bits = 32;
  std::vector<Feature> requires_features;
};

// A formula or `~` (unknown, to be measured by the Judge).
using MaybeFormula = std::optional<Formula>;

struct MemoryCost {
  MaybeFormula device_bytes, host_bytes, disk_bytes;
};

struct Cost {
  CostProvenance provenance = CostProvenance::JudgeMeasured;
  CostClass cost_class = CostClass::CheapElementwise;
  MaybeFormula flops, bytes_moved, overhead_ns;
  MemoryCost memory;
};

struct Precision {
  bool bit_stable_on_same_hardware = false;
  std::optional<double> max_ulp, max_relative, max_absolute;
  bool audited = false;
  std::string notes;
};

struct BindingSlot {
  std::uint32_t binding = 0;  // descriptor set 0
  std::string buffer;         // an input, an output or a buffer op_param
  BufferAccess access = BufferAccess::Read;
};

// Our extension: the kernel's interface, held against its SPIR-V.
struct LinkSpec {
  std::vector<BindingSlot> bindings;  // ascending, 0..n-1
  std::uint32_t push_constant_bytes = 0;
};

struct Contract {
  std::string kernel;
  OpKind op_kind = OpKind::Pad;
  std::string blurb;
  std::string backend;
  std::string kernel_source;
  std::string entry_point;
  std::optional<std::string> pinned_revision_hash;  // nullopt: `auto`
  std::vector<InputSpec> inputs;
  OpParams op_params;
  std::vector<OutputSpec> outputs;
  Caps caps;
  Cost cost;
  Precision precision;
  Determinism determinism = Determinism::Bitwise;
  LinkSpec link;

  // Derived at load time.
  std::uint32_t element_bytes = 0;  // from the name: _b4 -> 4, _f16 -> 2
  std::string prose;                // the markdown under the kernel's heading
  SourceLoc loc;                    // the `kernel:` line
  SourceLoc entry_point_loc;

  const InputSpec* find_input(std::string_view name) const;
  const OutputSpec* find_output(std::string_view name) const;
  // The input whose dtype the (first) output passes through: the kernel's data input.
  const InputSpec& data_input() const;
  bool requires_feature(Feature f) const;
  // Symbol values that only depend on the kernel (dtype_bytes); callers add the request's.
  SymbolValues base_symbols() const;
};

struct ContractSet {
  Provider provider;
  std::vector<Contract> contracts;
  const Contract* find(std::string_view kernel) const;
};

}  // namespace fvk::fkc
