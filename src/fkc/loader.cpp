#include "fkc/loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "fkc/document.hpp"
#include "fkc/rules.hpp"
#include "fvk/error.hpp"

namespace fvk::fkc {

namespace {

// One YAML section being read: maps node marks to file lines and records every key's line.
struct Ctx {
  std::string file;
  int first_line = 0;
  KeyLines* keys = nullptr;

  SourceLoc at(const YAML::Node& node) const {
    const auto mark = node.Mark();
    return {file, mark.line >= 0 ? first_line + mark.line : first_line};
  }
};

std::string join_path(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// A mapping whose keys must all be consumed: req()/opt() take keys, done() rejects the rest.
class MapReader {
 public:
  MapReader(const YAML::Node& node, std::string path, const Ctx& ctx) : node_(node), path_(std::move(path)), ctx_(ctx) {
    if (!node.IsMap())
      contract_error(ctx.at(node), fmt::format("{}: expected a mapping", path_.empty() ? "block" : path_));
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) contract_error(ctx.at(kv.first), path_ + ": keys must be plain names");
      const auto key = kv.first.Scalar();
      if (keys_.count(key)) contract_error(ctx.at(kv.first), fmt::format("{}: duplicate key '{}'", shown(), key));
      keys_.emplace(key, std::make_pair(kv.first, kv.second));
    }
  }

  YAML::Node req(const std::string& key) {
    auto v = opt(key);
    if (!v) contract_error(ctx_.at(node_), fmt::format("{}: missing required key '{}'", shown(), key));
    return *v;
  }

  std::optional<YAML::Node> opt(const std::string& key) {
    allowed_.push_back(key);
    const auto it = keys_.find(key);
    if (it == keys_.end()) return std::nullopt;
    consumed_.insert(key);
    if (ctx_.keys) ctx_.keys->lines[join_path(path_, key)] = ctx_.at(it->second.first).line;
    return it->second.second;
  }

  void done() const {
    for (const auto& [key, kv] : keys_)
      if (!consumed_.count(key))
        contract_error(ctx_.at(kv.first),
                       fmt::format("{}: unknown key '{}' (allowed: {})", shown(), key, fmt::join(allowed_, ", ")));
  }

  const std::string& path() const { return path_; }
  std::string sub(const std::string& key) const { return join_path(path_, key); }

 private:
  std::string shown() const { return path_.empty() ? "block" : path_; }

  YAML::Node node_;
  std::string path_;
  const Ctx& ctx_;
  std::map<std::string, std::pair<YAML::Node, YAML::Node>> keys_;
  std::set<std::string> consumed_;
  std::vector<std::string> allowed_;
};

// ---- typed scalars -------------------------------------------------------------------------

bool is_plain(const YAML::Node& n) { return n.Tag() == "?"; }

std::string read_string(const YAML::Node& n, const std::string& path, const Ctx& ctx, bool allow_empty = false) {
  // Plain ("?"), quoted ("!") or tagged !!str; any other tag (!!int, !foo) says it is not a string.
  if (!n.IsScalar() || (n.Tag() != "?" && n.Tag() != "!" && n.Tag() != "tag:yaml.org,2002:str"))
    contract_error(ctx.at(n),
                   path + ": expected a string" + (n.IsScalar() ? fmt::format(", not one tagged {}", n.Tag()) : ""));
  if (!allow_empty && n.Scalar().empty()) contract_error(ctx.at(n), path + ": must not be empty");
  // The text was UTF-8, but YAML's escapes \_ and \N decode to single bytes that are not (0xA0,
  // 0x85): the canonical JSON of the revision hash would then throw.
  if (const auto bad = first_non_utf8(n.Scalar()))
    contract_error(ctx.at(n), fmt::format("{}: not UTF-8 once its escapes are read: byte 0x{:02X} at {} (write "
                                          "\\u00A0 or \\u0085, not \\_ or \\N)",
                                          path, static_cast<unsigned char>(n.Scalar()[*bad]), *bad + 1));
  return n.Scalar();
}

bool read_bool(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  if (n.IsScalar() && is_plain(n)) {
    if (n.Scalar() == "true") return true;
    if (n.Scalar() == "false") return false;
  }
  contract_error(ctx.at(n), path + ": expected true or false");
}

std::uint32_t read_u32(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  if (n.IsScalar() && is_plain(n) && !n.Scalar().empty() && n.Scalar().size() <= 9 &&
      std::all_of(n.Scalar().begin(), n.Scalar().end(), [](unsigned char c) { return std::isdigit(c); }))
    return static_cast<std::uint32_t>(std::stoul(n.Scalar()));
  contract_error(ctx.at(n), path + ": expected a non-negative integer");
}

std::optional<double> read_number_or_null(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  if (n.IsNull()) return std::nullopt;
  if (n.IsScalar() && is_plain(n)) {
    std::istringstream in(n.Scalar());
    double v = 0;
    if (in >> v && in.eof() && v >= 0) return v;
  }
  contract_error(ctx.at(n), path + ": expected a non-negative number or ~");
}

template <class E>
E read_vocab(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  const auto text = read_string(n, path, ctx);
  if (auto v = parse_vocab<E>(text)) return *v;
  contract_error(ctx.at(n),
                 fmt::format("{}: '{}' is not a valid {} (one of: {})", path, text, Vocab<E>::name(), spellings<E>()));
}

std::vector<YAML::Node> read_seq(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  if (!n.IsSequence()) contract_error(ctx.at(n), path + ": expected a list");
  return {n.begin(), n.end()};
}

DType dtype_from_text(const std::string& text, const std::string& path, const SourceLoc& loc) {
  for (const DType d : kAllDTypes)
    if (contract_name(d) == text) return d;
  std::vector<std::string_view> names;
  for (const DType d : kAllDTypes) names.push_back(contract_name(d));
  contract_error(loc, fmt::format("{}: '{}' is not a dtype (one of: {})", path, text, fmt::join(names, ", ")));
}

DType read_dtype(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  return dtype_from_text(read_string(n, path, ctx), path, ctx.at(n));
}

MaybeFormula read_formula(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  if (n.IsNull()) return std::nullopt;
  const auto text = read_string(n, path, ctx);
  return Formula::parse(text, ctx.at(n), path);
}

// "NAME(ARG)" -> ARG when the head matches.
std::optional<std::string> call_arg(const std::string& text, std::string_view head) {
  if (text.size() > head.size() + 2 && text.starts_with(head) && text[head.size()] == '(' && text.back() == ')')
    return text.substr(head.size() + 1, text.size() - head.size() - 2);
  return std::nullopt;
}

bool is_identifier(std::string_view s) {
  return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// ---- blocks ---------------------------------------------------------------------------------

RankRange read_rank(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  const auto text = read_string(n, path, ctx);
  RankRange r;
  if (text == "any") {
    r.any = true;
    return r;
  }
  const auto sep = text.find("..=");
  auto bad = [&](const std::string& why) {
    contract_error(ctx.at(n), fmt::format("{}: '{}' {}; write \"LO..=HI\" (e.g. \"1..=8\") or any", path, text, why));
  };
  if (sep == std::string::npos) bad("is not a rank range");
  const auto lo = text.substr(0, sep), hi = text.substr(sep + 3);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 3 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  if (!digits(lo) || !digits(hi)) bad("is not a rank range");
  r.min = static_cast<std::uint32_t>(std::stoul(lo));
  r.max = static_cast<std::uint32_t>(std::stoul(hi));
  if (r.min > r.max) bad("has its low end above its high end");
  if (r.max > 64) bad("goes beyond rank 64");
  return r;
}

std::vector<ShapeClause> read_shape_constraint(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  const auto text = read_string(n, path, ctx);
  std::vector<ShapeClause> clauses;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ';');) {
    const auto clause = trim(part);
    ShapeClause c{};
    if (clause.starts_with("same_rank=")) {
      c = {ShapeClause::Kind::SameRank, trim(clause.substr(10))};
    } else if (clause.starts_with("same_as=")) {
      c = {ShapeClause::Kind::SameAs, trim(clause.substr(8))};
    } else if (clause.starts_with("element_count") && clause.find("==") != std::string::npos &&
               trim(clause.substr(13, clause.find("==") - 13)).empty()) {
      c = {ShapeClause::Kind::ElementCount, trim(clause.substr(clause.find("==") + 2))};
    } else {
      contract_error(ctx.at(n), fmt::format("{}: clause '{}' is not same_rank=NAME, same_as=NAME or "
                                            "element_count == SYMBOL",
                                            path, clause));
    }
    if (!is_identifier(c.target)) contract_error(ctx.at(n), fmt::format("{}: clause '{}' needs a name", path, clause));
    clauses.push_back(std::move(c));
  }
  if (clauses.empty()) contract_error(ctx.at(n), path + ": needs at least one clause");
  return clauses;
}

LayoutRule read_layout(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  LayoutRule l;
  l.contiguous = read_vocab<LayoutAcceptance>(m.req("contiguous"), m.sub("contiguous"), ctx);
  l.strided = read_vocab<LayoutAcceptance>(m.req("strided"), m.sub("strided"), ctx);
  l.broadcast_stride0 = read_vocab<LayoutAcceptance>(m.req("broadcast_stride0"), m.sub("broadcast_stride0"), ctx);
  l.start_offset = read_vocab<LayoutAcceptance>(m.req("start_offset"), m.sub("start_offset"), ctx);
  l.reverse_strides = read_vocab<LayoutAcceptance>(m.req("reverse_strides"), m.sub("reverse_strides"), ctx);
  m.done();
  return l;
}

InputSpec read_input(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  InputSpec in;
  in.loc = ctx.at(n);
  in.name = read_string(m.req("name"), m.sub("name"), ctx);
  if (!is_identifier(in.name)) contract_error(ctx.at(n), m.sub("name") + ": must be an identifier");
  int i = 0;
  for (const auto& d : read_seq(m.req("dtypes"), m.sub("dtypes"), ctx))
    in.dtypes.push_back(read_dtype(d, fmt::format("{}[{}]", m.sub("dtypes"), i++), ctx));
  in.layout = read_layout(m.req("layout"), m.sub("layout"), ctx);
  in.rank = read_rank(m.req("rank"), m.sub("rank"), ctx);
  in.shape_constraint = read_shape_constraint(m.req("shape_constraint"), m.sub("shape_constraint"), ctx);
  m.done();
  return in;
}

OpParams read_op_params(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  OpParams p;
  p.variant = read_vocab<OpKind>(m.req("variant"), m.sub("variant"), ctx);
  const auto fields = m.req("fields");
  MapReader fm(fields, m.sub("fields"), ctx);
  // Push-constant order is the document order, so walk the mapping itself.
  for (const auto& kv : fields) {
    const auto name = kv.first.Scalar();
    const auto fpath = fm.sub(name);
    fm.opt(name);
    if (!is_identifier(name)) contract_error(ctx.at(kv.first), fpath + ": field names must be identifiers");
    MapReader f(kv.second, fpath, ctx);
    ParamField pf;
    pf.name = name;
    pf.kind = read_vocab<ParamKind>(f.req("kind"), f.sub("kind"), ctx);
    if (auto c = f.opt("constraint")) pf.constraint = read_string(*c, f.sub("constraint"), ctx);
    if (auto c = f.opt("note")) pf.note = read_string(*c, f.sub("note"), ctx);
    if (auto parts = f.opt("parts")) {
      if (pf.kind != ParamKind::BufferU32)
        contract_error(ctx.at(*parts), f.sub("parts") + ": only buffer<u32> fields have parts");
      int i = 0;
      for (const auto& part : read_seq(*parts, f.sub("parts"), ctx)) {
        auto s = read_string(part, fmt::format("{}[{}]", f.sub("parts"), i++), ctx);
        if (!is_identifier(s)) contract_error(ctx.at(part), f.sub("parts") + ": parts must be identifiers");
        pf.parts.push_back(std::move(s));
      }
    }
    f.done();
    p.fields.push_back(std::move(pf));
  }
  fm.done();
  if (p.fields.empty()) contract_error(ctx.at(fields), m.sub("fields") + ": needs at least one field");
  m.done();
  return p;
}

OutputSpec read_output(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  OutputSpec o;
  o.loc = ctx.at(n);
  o.name = read_string(m.req("name"), m.sub("name"), ctx);
  if (!is_identifier(o.name)) contract_error(ctx.at(n), m.sub("name") + ": must be an identifier");

  const auto dr_node = m.req("dtype_rule");
  const auto dr = read_string(dr_node, m.sub("dtype_rule"), ctx);
  if (auto arg = call_arg(dr, "passthrough")) {
    o.dtype_rule = {DTypeRule::Kind::Passthrough, *arg, DType::U8};
  } else if (auto fixed = call_arg(dr, "fixed")) {
    o.dtype_rule.kind = DTypeRule::Kind::Fixed;
    o.dtype_rule.fixed = dtype_from_text(*fixed, m.sub("dtype_rule"), ctx.at(dr_node));
  } else {
    contract_error(ctx.at(dr_node), m.sub("dtype_rule") + ": '" + dr + "' is not passthrough(INPUT) or fixed(DTYPE)");
  }

  const auto sr_node = m.req("shape_rule");
  const auto sr = read_string(sr_node, m.sub("shape_rule"), ctx);
  if (auto arg = call_arg(sr, "from_params"))
    o.shape_rule = {ShapeRule::Kind::FromParams, *arg};
  else if (auto arg2 = call_arg(sr, "same_as"))
    o.shape_rule = {ShapeRule::Kind::SameAs, *arg2};
  else
    contract_error(ctx.at(sr_node), m.sub("shape_rule") + ": '" + sr + "' is not from_params(NAME) or same_as(INPUT)");

  o.layout_guarantee = read_vocab<LayoutGuarantee>(m.req("layout_guarantee"), m.sub("layout_guarantee"), ctx);

  const auto al_node = m.req("aliasing");
  const auto al = read_string(al_node, m.sub("aliasing"), ctx);
  if (al == "none") {
    o.aliasing = Aliasing::None;
  } else if (auto target = call_arg(al, "accumulate")) {
    o.aliasing = Aliasing::Accumulate;
    o.aliasing_target = *target;
  } else {
    contract_error(ctx.at(al_node), m.sub("aliasing") + ": '" + al + "' is not none or accumulate(OUTPUT)");
  }
  o.prefill = read_vocab<Prefill>(m.req("prefill"), m.sub("prefill"), ctx);
  m.done();
  return o;
}

Caps read_caps(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  Caps c;
  c.awkward_layout_strategy =
      read_vocab<AwkwardLayoutStrategy>(m.req("awkward_layout_strategy"), m.sub("awkward_layout_strategy"), ctx);
  int i = 0;
  for (const auto& fp : read_seq(m.req("fast_paths"), m.sub("fast_paths"), ctx)) {
    auto s = read_string(fp, fmt::format("{}[{}]", m.sub("fast_paths"), i++), ctx);
    if (!is_identifier(s)) contract_error(ctx.at(fp), m.sub("fast_paths") + ": fast paths are identifiers");
    c.fast_paths.push_back(std::move(s));
  }
  c.in_place = read_bool(m.req("in_place"), m.sub("in_place"), ctx);
  c.alignment_bytes = read_u32(m.req("alignment_bytes"), m.sub("alignment_bytes"), ctx);
  c.access_granularity_bits = read_u32(m.req("access_granularity_bits"), m.sub("access_granularity_bits"), ctx);
  i = 0;
  for (const auto& f : read_seq(m.req("requires_features"), m.sub("requires_features"), ctx))
    c.requires_features.push_back(read_vocab<Feature>(f, fmt::format("{}[{}]", m.sub("requires_features"), i++), ctx));
  m.done();
  return c;
}

Cost read_cost(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  Cost c;
  c.provenance = read_vocab<CostProvenance>(m.req("provenance"), m.sub("provenance"), ctx);
  c.cost_class = read_vocab<CostClass>(m.req("class"), m.sub("class"), ctx);
  c.flops = read_formula(m.req("flops"), m.sub("flops"), ctx);
  c.bytes_moved = read_formula(m.req("bytes_moved"), m.sub("bytes_moved"), ctx);
  c.overhead_ns = read_formula(m.req("overhead_ns"), m.sub("overhead_ns"), ctx);
  MapReader mem(m.req("memory"), m.sub("memory"), ctx);
  c.memory.device_bytes = read_formula(mem.req("device_bytes"), mem.sub("device_bytes"), ctx);
  c.memory.host_bytes = read_formula(mem.req("host_bytes"), mem.sub("host_bytes"), ctx);
  c.memory.disk_bytes = read_formula(mem.req("disk_bytes"), mem.sub("disk_bytes"), ctx);
  mem.done();
  m.done();
  return c;
}

Precision read_precision(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  Precision p;
  p.bit_stable_on_same_hardware =
      read_bool(m.req("bit_stable_on_same_hardware"), m.sub("bit_stable_on_same_hardware"), ctx);
  p.max_ulp = read_number_or_null(m.req("max_ulp"), m.sub("max_ulp"), ctx);
  p.max_relative = read_number_or_null(m.req("max_relative"), m.sub("max_relative"), ctx);
  p.max_absolute = read_number_or_null(m.req("max_absolute"), m.sub("max_absolute"), ctx);
  p.audited = read_bool(m.req("audited"), m.sub("audited"), ctx);
  p.notes = read_string(m.req("notes"), m.sub("notes"), ctx);
  m.done();
  return p;
}

LinkSpec read_link(const YAML::Node& n, const std::string& path, const Ctx& ctx) {
  MapReader m(n, path, ctx);
  LinkSpec l;
  int i = 0;
  for (const auto& b : read_seq(m.req("bindings"), m.sub("bindings"), ctx)) {
    MapReader bm(b, fmt::format("{}[{}]", m.sub("bindings"), i++), ctx);
    BindingSlot slot;
    slot.binding = read_u32(bm.req("binding"), bm.sub("binding"), ctx);
    slot.buffer = read_string(bm.req("buffer"), bm.sub("buffer"), ctx);
    slot.access = read_vocab<BufferAccess>(bm.req("access"), bm.sub("access"), ctx);
    bm.done();
    l.bindings.push_back(std::move(slot));
  }
  l.push_constant_bytes = read_u32(m.req("push_constant_bytes"), m.sub("push_constant_bytes"), ctx);
  m.done();
  return l;
}

YAML::Node parse_yaml(const YamlSection& section, const std::string& file) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(section.yaml);
  } catch (const YAML::Exception& e) {
    contract_error({file, section.first_line + std::max(0, e.mark.line)}, "YAML syntax: " + e.msg);
  }
  // One section, one YAML document: a second one (after a `---`) would otherwise be dropped unread,
  // unknown keys and all.
  if (docs.size() > 1)
    contract_error({file, section.first_line + std::max(0, docs[1].Mark().line)},
                   "a second YAML document (after ---) in one section: a section holds one mapping");
  return docs.empty() ? YAML::Node() : docs.front();
}

Provider read_provider(const YamlSection& fm, const std::string& file) {
  KeyLines keys;
  Ctx ctx{file, fm.first_line, &keys};
  const auto root = parse_yaml(fm, file);
  if (!root.IsMap()) contract_error({file, fm.first_line}, "front matter: expected a mapping");
  MapReader m(root, "", ctx);
  Provider p;
  p.loc = {file, fm.first_line};
  const auto v = m.req("fkc_version");
  p.fkc_version = static_cast<int>(read_u32(v, "fkc_version", ctx));
  if (p.fkc_version != 1) contract_error(ctx.at(v), "fkc_version: only version 1 is understood");
  MapReader pm(m.req("provider"), "provider", ctx);
  p.name = read_string(pm.req("name"), "provider.name", ctx);
  p.backend = read_string(pm.req("backend"), "provider.backend", ctx);
  p.kernel_source = read_string(pm.req("kernel_source"), "provider.kernel_source", ctx);
  p.link_registry = read_string(pm.req("link_registry"), "provider.link_registry", ctx);
  p.revision_base = read_string(pm.req("revision_base"), "provider.revision_base", ctx);
  pm.done();
  m.done();
  if (p.link_registry.find("::") == std::string::npos)
    contract_error({file, keys.lines["provider.link_registry"]},
                   "provider.link_registry: must be a qualified C++ symbol (ns::NAME)");
  return p;
}

Contract read_contract(const FkcBlock& block, const std::string& file, const Provider& provider) {
  KeyLines keys;
  keys.file = file;
  keys.fallback = block.body.first_line;
  Ctx ctx{file, block.body.first_line, &keys};
  const auto root = parse_yaml(block.body, file);
  if (!root.IsMap()) contract_error({file, block.body.first_line}, "fkc block: expected a mapping");
  MapReader m(root, "", ctx);
  Contract c;
  c.prose = block.prose;

  const auto kernel_node = m.req("kernel");
  c.kernel = read_string(kernel_node, "kernel", ctx);
  c.loc = ctx.at(kernel_node);
  if (!is_identifier(c.kernel)) contract_error(c.loc, "kernel: must be an identifier");
  if (c.kernel != block.heading)
    contract_error(c.loc, fmt::format("kernel: '{}' sits under heading '## {}' (line {}); a block's heading "
                                      "names its kernel",
                                      c.kernel, block.heading, block.heading_line));
  c.op_kind = read_vocab<OpKind>(m.req("op_kind"), "op_kind", ctx);
  c.blurb = read_string(m.req("blurb"), "blurb", ctx);
  c.backend = read_string(m.req("backend"), "backend", ctx);
  c.kernel_source = read_string(m.req("kernel_source"), "kernel_source", ctx);
  const auto ep = m.req("entry_point");
  c.entry_point = read_string(ep, "entry_point", ctx);
  c.entry_point_loc = ctx.at(ep);
  const auto hash = read_string(m.req("kernel_revision_hash"), "kernel_revision_hash", ctx);
  if (hash != "auto") c.pinned_revision_hash = hash;

  MapReader accept(m.req("accept"), "accept", ctx);
  int i = 0;
  for (const auto& in : read_seq(accept.req("inputs"), "accept.inputs", ctx))
    c.inputs.push_back(read_input(in, fmt::format("accept.inputs[{}]", i++), ctx));
  c.op_params = read_op_params(accept.req("op_params"), "accept.op_params", ctx);
  accept.done();

  MapReader ret(m.req("return"), "return", ctx);
  i = 0;
  for (const auto& out : read_seq(ret.req("outputs"), "return.outputs", ctx))
    c.outputs.push_back(read_output(out, fmt::format("return.outputs[{}]", i++), ctx));
  ret.done();

  c.caps = read_caps(m.req("caps"), "caps", ctx);
  c.cost = read_cost(m.req("cost"), "cost", ctx);
  c.precision = read_precision(m.req("precision"), "precision", ctx);
  c.determinism = read_vocab<Determinism>(m.req("determinism"), "determinism", ctx);
  c.link = read_link(m.req("link"), "link", ctx);
  m.done();

  c.element_bytes = element_bytes_from_name(c.kernel, c.loc);
  check_contract_rules(c, provider, keys);
  return c;
}

}  // namespace

ContractSet load_contract_set(std::span<const SourceText> sources) {
  std::vector<Document> docs;
  for (const auto& s : sources) docs.push_back(split_document(s));

  ContractSet set;
  const Document* provider_doc = nullptr;
  for (const auto& d : docs) {
    if (!d.front_matter) continue;
    if (provider_doc)
      contract_error({d.file, 1}, "second provider front matter; the set already has one in " + provider_doc->file);
    set.provider = read_provider(*d.front_matter, d.file);
    provider_doc = &d;
  }
  if (!provider_doc)
    contract_error({sources.empty() ? std::string("<no files>") : sources.front().file, 1},
                   "no provider front matter in the contract set");

  for (const auto& d : docs) {
    for (const auto& block : d.blocks) {
      auto c = read_contract(block, d.file, set.provider);
      if (const auto* first = set.find(c.kernel))
        contract_error(c.loc,
                       fmt::format("duplicate kernel '{}': already contracted at {}", c.kernel, first->loc.str()));
      set.contracts.push_back(std::move(c));
    }
  }
  return set;
}

std::vector<SourceText> read_contract_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().filename().string().ends_with(".fkc.md")) paths.push_back(e.path());
  if (ec) fail(ErrorCode::InvalidFile, "cannot list contract directory " + dir.string() + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  auto base = dir.lexically_normal();
  if (base.filename().empty()) base = base.parent_path();
  std::vector<SourceText> out;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) fail(ErrorCode::InvalidFile, "cannot read " + p.string());
    std::ostringstream text;
    text << in.rdbuf();
    out.push_back({(base.filename() / p.filename()).string(), text.str()});
  }
  return out;
}

}  // namespace fvk::fkc
