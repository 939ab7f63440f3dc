#include "fkc/serialize.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace fvk::fkc {

namespace {

using J = nlohmann::ordered_json;

J formula(const MaybeFormula& f) { return f ? J(f->str()) : J(nullptr); }
J number(const std::optional<double>& v) { return v ? J(*v) : J(nullptr); }

J dtypes(const std::vector<DType>& ds) {
  J out = J::array();
  for (auto d : ds) out.push_back(std::string(contract_name(d)));
  return out;
}

std::string shape_constraint(const std::vector<ShapeClause>& clauses) {
  std::string out;
  for (const auto& c : clauses) out += (out.empty() ? "" : "; ") + c.str();
  return out;
}

void emit(YAML::Emitter& e, const J& j) {
  if (j.is_object()) {
    // Short maps of scalars read best on one line, as the documents write them.
    const bool flat = !j.empty() && std::all_of(j.begin(), j.end(), [](const J& v) { return v.is_primitive(); }) &&
                      j.dump().size() <= 120;
    if (flat) e << YAML::Flow;
    e << YAML::BeginMap;
    for (const auto& [k, v] : j.items()) {
      e << YAML::Key << k << YAML::Value;
      emit(e, v);
    }
    e << YAML::EndMap;
  } else if (j.is_array()) {
    const bool flat = std::all_of(j.begin(), j.end(), [](const J& v) { return v.is_primitive(); });
    if (flat) e << YAML::Flow;
    e << YAML::BeginSeq;
    for (const auto& v : j) emit(e, v);
    e << YAML::EndSeq;
  } else if (j.is_null()) {
    e << YAML::Null;
  } else if (j.is_boolean()) {
    e << YAML::TrueFalseBool << j.get<bool>();
  } else if (j.is_number_unsigned()) {
    e << j.get<std::uint64_t>();
  } else if (j.is_number_integer()) {
    e << j.get<std::int64_t>();
  } else if (j.is_number_float()) {
    e << j.get<double>();
  } else {
    e << j.get<std::string>();
  }
}

}  // namespace

J to_json(const Provider& p) {
  return J{{"fkc_version", p.fkc_version},
           {"provider",
            {{"name", p.name},
             {"backend", p.backend},
             {"kernel_source", p.kernel_source},
             {"link_registry", p.link_registry},
             {"revision_base", p.revision_base}}}};
}

J to_json(const Contract& c, const std::optional<std::string>& revision_hash) {
  J j;
  j["kernel"] = c.kernel;
  j["op_kind"] = to_string(c.op_kind);
  j["blurb"] = c.blurb;
  j["backend"] = c.backend;
  j["kernel_source"] = c.kernel_source;
  j["entry_point"] = c.entry_point;
  if (revision_hash) j["kernel_revision_hash"] = *revision_hash;

  J inputs = J::array();
  for (const auto& in : c.inputs) {
    inputs.push_back({{"name", in.name},
                      {"dtypes", dtypes(in.dtypes)},
                      {"layout",
                       {{"contiguous", to_string(in.layout.contiguous)},
                        {"strided", to_string(in.layout.strided)},
                        {"broadcast_stride0", to_string(in.layout.broadcast_stride0)},
                        {"start_offset", to_string(in.layout.start_offset)},
                        {"reverse_strides", to_string(in.layout.reverse_strides)}}},
                      {"rank", in.rank.str()},
                      {"shape_constraint", shape_constraint(in.shape_constraint)}});
  }
  J fields = J::object();
  for (const auto& f : c.op_params.fields) {
    J field{{"kind", to_string(f.kind)}};
    if (f.constraint) field["constraint"] = *f.constraint;
    if (f.note) field["note"] = *f.note;
    if (!f.parts.empty()) field["parts"] = f.parts;
    fields[f.name] = field;
  }
  j["accept"] = {{"inputs", inputs}, {"op_params", {{"variant", to_string(c.op_params.variant)}, {"fields", fields}}}};

  J outputs = J::array();
  for (const auto& o : c.outputs)
    outputs.push_back({{"name", o.name},
                       {"dtype_rule", o.dtype_rule.str()},
                       {"shape_rule", o.shape_rule.str()},
                       {"layout_guarantee", to_string(o.layout_guarantee)},
                       {"aliasing", o.aliasing_str()},
                       {"prefill", to_string(o.prefill)}});
  j["return"] = {{"outputs", outputs}};

  J features = J::array();
  for (auto f : c.caps.requires_features) features.push_back(std::string(to_string(f)));
  j["caps"] = {{"awkward_layout_strategy", to_string(c.caps.awkward_layout_strategy)},
               {"fast_paths", c.caps.fast_paths},
               {"in_place", c.caps.in_place},
               {"alignment_bytes", c.caps.alignment_bytes},
               {"access_granularity_bits", c.caps.access_granularity_bits},
               {"requires_features", features}};
  j["cost"] = {{"provenance", to_string(c.cost.provenance)},
               {"class", to_string(c.cost.cost_class)},
               {"flops", formula(c.cost.flops)},
               {"bytes_moved", formula(c.cost.bytes_moved)},
               {"overhead_ns", formula(c.cost.overhead_ns)},
               {"memory",
                {{"device_bytes", formula(c.cost.memory.device_bytes)},
                 {"host_bytes", formula(c.cost.memory.host_bytes)},
                 {"disk_bytes", formula(c.cost.memory.disk_bytes)}}}};
  j["precision"] = {{"bit_stable_on_same_hardware", c.precision.bit_stable_on_same_hardware},
                    {"max_ulp", number(c.precision.max_ulp)},
                    {"max_relative", number(c.precision.max_relative)},
                    {"max_absolute", number(c.precision.max_absolute)},
                    {"audited", c.precision.audited},
                    {"notes", c.precision.notes}};
  j["determinism"] = to_string(c.determinism);
  J bindings = J::array();
  for (const auto& b : c.link.bindings)
    bindings.push_back({{"binding", b.binding}, {"buffer", b.buffer}, {"access", to_string(b.access)}});
  j["link"] = {{"bindings", bindings}, {"push_constant_bytes", c.link.push_constant_bytes}};
  return j;
}

std::string to_yaml(const J& tree) {
  YAML::Emitter e;
  e.SetIndent(2);
  emit(e, tree);
  return std::string(e.c_str()) + "\n";
}

}  // namespace fvk::fkc
