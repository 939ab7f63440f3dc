#include "fkc/contract.hpp"

#include <algorithm>

#include "fvk/error.hpp"

namespace fvk::fkc {

std::string RankRange::str() const { return any ? "any" : std::to_string(min) + "..=" + std::to_string(max); }

bool LayoutRule::accepts_awkward() const {
  for (auto a : {strided, broadcast_stride0, start_offset, reverse_strides})
    if (a != LayoutAcceptance::Rejected) return true;
  return false;
}

std::string ShapeClause::str() const {
  switch (kind) {
    case Kind::SameRank: return "same_rank=" + target;
    case Kind::SameAs: return "same_as=" + target;
    case Kind::ElementCount: return "element_count == " + target;
  }
  return {};
}

bool InputSpec::accepts(DType dtype) const { return std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end(); }

std::uint32_t ParamField::push_bytes() const {
  switch (kind) {
    case ParamKind::U32:
    case ParamKind::I32:
    case ParamKind::F32: return 4;
    case ParamKind::U64: return 8;
    case ParamKind::BufferU32: return 0;
  }
  return 0;
}

const ParamField* OpParams::find(std::string_view name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

std::string DTypeRule::str() const {
  return kind == Kind::Passthrough ? "passthrough(" + input + ")" : "fixed(" + std::string(contract_name(fixed)) + ")";
}

std::string ShapeRule::str() const { return (kind == Kind::FromParams ? "from_params(" : "same_as(") + ref + ")"; }

std::string OutputSpec::aliasing_str() const {
  return aliasing == Aliasing::None ? "none" : "accumulate(" + aliasing_target + ")";
}

const InputSpec* Contract::find_input(std::string_view name) const {
  for (const auto& i : inputs)
    if (i.name == name) return &i;
  return nullptr;
}

const OutputSpec* Contract::find_output(std::string_view name) const {
  for (const auto& o : outputs)
    if (o.name == name) return &o;
  return nullptr;
}

const InputSpec& Contract::data_input() const {
  for (const auto& o : outputs)
    if (o.dtype_rule.kind == DTypeRule::Kind::Passthrough)
      if (const auto* in = find_input(o.dtype_rule.input)) return *in;
  if (inputs.empty()) fail(ErrorCode::Internal, "contract " + kernel + " has no inputs");
  return inputs.front();
}

bool Contract::requires_feature(Feature f) const {
  const auto& r = caps.requires_features;
  return std::find(r.begin(), r.end(), f) != r.end();
}

SymbolValues Contract::base_symbols() const { return {{"dtype_bytes", double(element_bytes)}}; }

const Contract* ContractSet::find(std::string_view kernel) const {
  for (const auto& c : contracts)
    if (c.kernel == kernel) return &c;
  return nullptr;
}

}  // namespace fvk::fkc
