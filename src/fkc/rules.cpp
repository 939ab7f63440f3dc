#include "fkc/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fvk::fkc {

SourceLoc KeyLines::at(const std::string& path) const {
  const auto it = lines.find(path);
  return {file, it != lines.end() ? it->second : fallback};
}

std::uint32_t element_bytes_from_name(const std::string& kernel, const SourceLoc& loc) {
  const auto us = kernel.rfind('_');
  const std::string suffix = us == std::string::npos ? std::string() : kernel.substr(us + 1);
  if (suffix == "b1" || suffix == "b2" || suffix == "b4" || suffix == "b8")
    return static_cast<std::uint32_t>(suffix[1] - '0');
  for (const DType d : kAllDTypes)
    if (suffix == name(d)) return static_cast<std::uint32_t>(byte_width(d));
  contract_error(loc, fmt::format("kernel: '{}' must end in its element width (_b1, _b2, _b4, _b8) or its "
                                  "dtype (_f32, _bf16, ...)",
                                  kernel));
}

namespace {

std::optional<DType> dtype_suffix(const std::string& kernel) {
  const auto suffix = kernel.substr(kernel.rfind('_') + 1);
  for (const DType d : kAllDTypes)
    if (suffix == name(d)) return d;
  return std::nullopt;
}

std::string dtype_list(const std::vector<DType>& dtypes) {
  std::vector<std::string_view> names;
  for (auto d : dtypes) names.push_back(contract_name(d));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

bool is_symbol(const std::string& s) {
  const auto syms = known_symbols();
  return std::find(syms.begin(), syms.end(), s) != syms.end();
}

// Characters (code points) of UTF-8 text: its bytes that do not continue a sequence.
std::size_t utf8_characters(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

// No control character (a line feed, a carriage return, a tab, the C1 range's U+0085 NEL) and no
// Unicode line or paragraph separator (U+2028, U+2029): YAML's escapes \n, \r, \t, \L and \P and
// \u0085 produce them. (Its \N gives the lone byte 0x85, which the loader refuses as not UTF-8.)
bool is_one_line(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x20 || ch == 0x7F) return false;
    if (ch == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9F)
      return false;  // U+0080..U+009F
    if (ch == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9))
      return false;  // U+2028, U+2029
  }
  return true;
}

void check_names(const Contract& c, const KeyLines& keys) {
  if (c.inputs.empty()) contract_error(keys.at("accept.inputs"), "accept.inputs: a kernel reads at least one input");
  if (c.outputs.empty())
    contract_error(keys.at("return.outputs"), "return.outputs: a kernel writes at least one output");
  std::set<std::string> seen;
  auto claim = [&](const std::string& n, const SourceLoc& loc) {
    if (!seen.insert(n).second)
      contract_error(loc, fmt::format("name '{}' is used twice among inputs, outputs, op_params and their parts", n));
  };
  for (const auto& in : c.inputs) claim(in.name, in.loc);
  for (const auto& out : c.outputs) claim(out.name, out.loc);
  for (const auto& f : c.op_params.fields) claim(f.name, keys.at("accept.op_params.fields." + f.name));
  // A buffer<u32> field's parts too: shape_rule's from_params() looks a name up among fields and
  // parts alike, so one name must mean one thing.
  for (const auto& f : c.op_params.fields)
    for (const auto& part : f.parts) claim(part, keys.at("accept.op_params.fields." + f.name));
}

void check_dtypes(const Contract& c, const KeyLines& keys) {
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& in = c.inputs[i];
    const auto path = fmt::format("accept.inputs[{}].dtypes", i);
    if (in.dtypes.empty()) contract_error(keys.at(path), path + ": lists no dtype");
    std::set<DType> uniq(in.dtypes.begin(), in.dtypes.end());
    if (uniq.size() != in.dtypes.size()) contract_error(keys.at(path), path + ": lists a dtype twice");
  }
  // The data input (what the output passes through) must match the kernel's element width.
  const auto& data = c.data_input();
  const auto idx = static_cast<std::size_t>(&data - c.inputs.data());
  const auto path = fmt::format("accept.inputs[{}].dtypes", idx);
  for (const DType d : data.dtypes)
    if (byte_width(d) != c.element_bytes)
      contract_error(keys.at(path), fmt::format("{}: {} is {}-byte but kernel {} moves {}-byte elements", path,
                                                contract_name(d), byte_width(d), c.kernel, c.element_bytes));
  if (const auto d = dtype_suffix(c.kernel); d && (data.dtypes.size() != 1 || data.dtypes[0] != *d))
    contract_error(keys.at(path),
                   fmt::format("{}: kernel {} is specific to {}; it must list exactly [{}], not {}", path, c.kernel,
                               contract_name(*d), contract_name(*d), dtype_list(data.dtypes)));
}

void check_shapes(const Contract& c, const KeyLines& keys) {
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& in = c.inputs[i];
    const auto path = fmt::format("accept.inputs[{}].shape_constraint", i);
    for (const auto& clause : in.shape_constraint) {
      if (clause.kind == ShapeClause::Kind::ElementCount) {
        if (!is_symbol(clause.target))
          contract_error(keys.at(path), fmt::format("{}: '{}' is not a known symbol", path, clause.target));
      } else if (clause.target == in.name) {
        contract_error(keys.at(path), fmt::format("{}: '{}' refers to the input itself", path, clause.str()));
      } else if (!c.find_input(clause.target) && !c.find_output(clause.target)) {
        contract_error(keys.at(path), fmt::format("{}: '{}' names no input or output", path, clause.str()));
      }
    }
    const auto lpath = fmt::format("accept.inputs[{}].layout", i);
    const auto& l = in.layout;
    if (l.contiguous == LayoutAcceptance::Rejected)
      contract_error(keys.at(lpath + ".contiguous"), lpath + ".contiguous: every kernel must take a contiguous input");
    if (l.contiguous == LayoutAcceptance::Required && l.accepts_awkward())
      contract_error(keys.at(lpath), lpath + ": contiguous is required, so every other layout must be rejected");
    for (auto a : {l.strided, l.broadcast_stride0, l.start_offset, l.reverse_strides})
      if (a == LayoutAcceptance::Required)
        contract_error(keys.at(lpath), lpath + ": only contiguous may be 'required'");
    if (l.contiguous == LayoutAcceptance::Accepted && !l.accepts_awkward())
      contract_error(keys.at(lpath + ".contiguous"),
                     lpath + ".contiguous: every other layout is rejected, so contiguous is 'required'");
  }
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    const auto& out = c.outputs[i];
    const auto base = fmt::format("return.outputs[{}]", i);
    if (out.dtype_rule.kind == DTypeRule::Kind::Passthrough && !c.find_input(out.dtype_rule.input))
      contract_error(keys.at(base + ".dtype_rule"),
                     fmt::format("{}.dtype_rule: '{}' names no input", base, out.dtype_rule.str()));
    if (out.dtype_rule.kind == DTypeRule::Kind::Fixed && byte_width(out.dtype_rule.fixed) != c.element_bytes)
      contract_error(keys.at(base + ".dtype_rule"),
                     fmt::format("{}.dtype_rule: {} does not match the kernel's {}-byte elements", base,
                                 out.dtype_rule.str(), c.element_bytes));
    const auto& ref = out.shape_rule.ref;
    if (out.shape_rule.kind == ShapeRule::Kind::SameAs && !c.find_input(ref))
      contract_error(keys.at(base + ".shape_rule"),
                     fmt::format("{}.shape_rule: '{}' names no input", base, out.shape_rule.str()));
    if (out.shape_rule.kind == ShapeRule::Kind::FromParams) {
      bool found = false;
      for (const auto& f : c.op_params.fields)
        found = found || (f.kind != ParamKind::BufferU32 && f.name == ref) ||
                std::find(f.parts.begin(), f.parts.end(), ref) != f.parts.end();
      if (!found)
        contract_error(
            keys.at(base + ".shape_rule"),
            fmt::format("{}.shape_rule: '{}' names no op_params field or buffer part", base, out.shape_rule.str()));
    }
  }
}

void check_aliasing(const Contract& c, const KeyLines& keys) {
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    const auto& out = c.outputs[i];
    const auto base = fmt::format("return.outputs[{}]", i);
    if (out.aliasing == Aliasing::Accumulate) {
      if (out.aliasing_target != out.name)
        contract_error(keys.at(base + ".aliasing"),
                       fmt::format("{}.aliasing: {} must name this output ('{}')", base, out.aliasing_str(), out.name));
      if (c.caps.in_place)
        contract_error(keys.at("caps.in_place"),
                       fmt::format("caps.in_place: output '{}' is {}, a separate zero-filled accumulator, so "
                                   "in_place must be false",
                                   out.name, out.aliasing_str()));
      if (out.prefill != Prefill::Zero)
        contract_error(keys.at(base + ".prefill"),
                       fmt::format("{}.prefill: {} only sums into the buffer, so the wrapper must zero-fill it "
                                   "(prefill: zero)",
                                   base, out.aliasing_str()));
    } else if (out.prefill != Prefill::None) {
      contract_error(keys.at(base + ".prefill"),
                     base + ".prefill: an output written in full (aliasing: none) needs no prefill");
    }
  }
}

void check_caps(const Contract& c, const KeyLines& keys) {
  const auto& caps = c.caps;
  const bool any_awkward =
      std::any_of(c.inputs.begin(), c.inputs.end(), [](const InputSpec& in) { return in.layout.accepts_awkward(); });
  if (caps.awkward_layout_strategy == AwkwardLayoutStrategy::Native && !any_awkward)
    contract_error(keys.at("caps.awkward_layout_strategy"),
                   "caps.awkward_layout_strategy: native, but no input accepts a non-contiguous layout");
  if (caps.awkward_layout_strategy != AwkwardLayoutStrategy::Native && any_awkward)
    contract_error(keys.at("caps.awkward_layout_strategy"),
                   fmt::format("caps.awkward_layout_strategy: {}, but an input accepts non-contiguous layouts "
                               "(that is native)",
                               to_string(caps.awkward_layout_strategy)));
  const auto a = caps.alignment_bytes;
  if (a < 4 || (a & (a - 1)) != 0)
    contract_error(keys.at("caps.alignment_bytes"), "caps.alignment_bytes: must be a power of two, at least 4");
  const auto g = caps.access_granularity_bits;
  if (g != 8 && g != 16 && g != 32 && g != 64 && g != 128)
    contract_error(keys.at("caps.access_granularity_bits"), "caps.access_granularity_bits: one of 8, 16, 32, 64, 128");
  std::set<Feature> feats(caps.requires_features.begin(), caps.requires_features.end());
  if (feats.size() != caps.requires_features.size())
    contract_error(keys.at("caps.requires_features"), "caps.requires_features: lists a feature twice");
  std::set<std::string> fps(caps.fast_paths.begin(), caps.fast_paths.end());
  if (fps.size() != caps.fast_paths.size())
    contract_error(keys.at("caps.fast_paths"), "caps.fast_paths: lists a fast path twice");
}

void check_precision(const Contract& c, const KeyLines& keys) {
  const auto& p = c.precision;
  if (!p.audited) contract_error(keys.at("precision.audited"), "precision.audited: every contract is audited (true)");
  const bool bitwise = c.determinism == Determinism::Bitwise;
  if (bitwise != p.bit_stable_on_same_hardware)
    contract_error(keys.at("determinism"),
                   fmt::format("determinism: {} requires precision.bit_stable_on_same_hardware: {} (line {})",
                               to_string(c.determinism), bitwise ? "true" : "false",
                               keys.at("precision.bit_stable_on_same_hardware").line));
}

void check_link(const Contract& c, const KeyLines& keys) {
  const auto& l = c.link;
  std::set<std::string> bound;
  for (std::size_t i = 0; i < l.bindings.size(); ++i) {
    const auto& b = l.bindings[i];
    const auto base = fmt::format("link.bindings[{}]", i);
    if (b.binding != i)
      contract_error(keys.at(base + ".binding"),
                     fmt::format("{}.binding: bindings are numbered 0..n-1 in order; expected {}", base, i));
    if (!bound.insert(b.buffer).second)
      contract_error(keys.at(base + ".buffer"), fmt::format("{}.buffer: '{}' is bound twice", base, b.buffer));
    const auto* out = c.find_output(b.buffer);
    const auto* field = c.op_params.find(b.buffer);
    BufferAccess want{};
    if (c.find_input(b.buffer) || (field && field->kind == ParamKind::BufferU32))
      want = BufferAccess::Read;
    else if (out)
      want = out->aliasing == Aliasing::Accumulate ? BufferAccess::ReadWrite : BufferAccess::Write;
    else
      contract_error(keys.at(base + ".buffer"),
                     fmt::format("{}.buffer: '{}' names no input, output or buffer<u32> op_param", base, b.buffer));
    if (b.access != want)
      contract_error(keys.at(base + ".access"), fmt::format("{}.access: '{}' is {}, expected {}", base, b.buffer,
                                                            to_string(b.access), to_string(want)));
  }
  auto must_bind = [&](const std::string& name, const SourceLoc& loc) {
    if (!bound.count(name)) contract_error(loc, fmt::format("link.bindings: '{}' has no binding", name));
  };
  for (const auto& in : c.inputs) must_bind(in.name, keys.at("link.bindings"));
  for (const auto& out : c.outputs) must_bind(out.name, keys.at("link.bindings"));
  // The scalar fields in order, each at the next offset that is a multiple of its size (std430: a u64
  // after an odd count of 4-byte fields starts 4 bytes later); the block ends where the last ends.
  std::uint32_t push = 0;
  for (const auto& f : c.op_params.fields) {
    if (f.kind == ParamKind::BufferU32) must_bind(f.name, keys.at("link.bindings"));
    if (const std::uint32_t size = f.push_bytes(); size > 0) push = (push + size - 1) / size * size + size;
  }
  if (push != l.push_constant_bytes)
    contract_error(keys.at("link.push_constant_bytes"),
                   fmt::format("link.push_constant_bytes: {}, but the scalar op_params fields, each aligned to its "
                               "size (std430), end at {} bytes",
                               l.push_constant_bytes, push));
}

}  // namespace

void check_contract_rules(const Contract& c, const Provider& p, const KeyLines& keys) {
  if (c.backend != p.backend)
    contract_error(keys.at("backend"),
                   fmt::format("backend: '{}' differs from the provider's '{}'", c.backend, p.backend));
  if (c.kernel_source != p.kernel_source)
    contract_error(keys.at("kernel_source"), fmt::format("kernel_source: '{}' differs from the provider's '{}'",
                                                         c.kernel_source, p.kernel_source));
  const auto ns = p.link_registry.substr(0, p.link_registry.rfind("::"));
  if (c.entry_point != ns + "::" + c.kernel)
    contract_error(keys.at("entry_point"),
                   fmt::format("entry_point: '{}' must be '{}::{}' (the link registry's namespace and the kernel)",
                               c.entry_point, ns, c.kernel));
  if (c.pinned_revision_hash &&
      (c.pinned_revision_hash->size() != 16 ||
       !std::all_of(c.pinned_revision_hash->begin(), c.pinned_revision_hash->end(),
                    [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); })))
    contract_error(keys.at("kernel_revision_hash"), "kernel_revision_hash: auto, or 16 lower-case hex digits");
  if (!is_one_line(c.blurb) || utf8_characters(c.blurb) > 200)
    contract_error(keys.at("blurb"), fmt::format("blurb: one line of at most 200 characters (it has {} characters{})",
                                                 utf8_characters(c.blurb),
                                                 is_one_line(c.blurb) ? "" : " and a line break or control character"));
  if (c.op_params.variant != c.op_kind)
    contract_error(keys.at("accept.op_params.variant"),
                   fmt::format("accept.op_params.variant: {} differs from op_kind {}", to_string(c.op_params.variant),
                               to_string(c.op_kind)));
  check_names(c, keys);
  check_dtypes(c, keys);
  check_shapes(c, keys);
  check_aliasing(c, keys);
  check_caps(c, keys);
  check_precision(c, keys);
  check_link(c, keys);
}

}  // namespace fvk::fkc
