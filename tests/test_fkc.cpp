// Contracts as data: the shipped contracts load and hold against the kernels; formulas parse and
// evaluate; revision hashes move exactly when the kernel or its contract does; each broken fixture
// in tests/fkc_bad/ fails with its own rule at its own file:line.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "expect_error.hpp"
#include "fkc/catalog.hpp"
#include "fkc/embedded_contracts.hpp"
#include "fkc/loader.hpp"
#include "fkc/revision_hash.hpp"
#include "fkc/serialize.hpp"
#include "fvk/error.hpp"
#include "runtime/embedded.hpp"

namespace fvk::fkc {
namespace {

using fvk::testing::expect_error;
using ::testing::HasSubstr;

const std::filesystem::path kSource = FVK_SOURCE_DIR;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

SourceText provider_source() {
  return {"contracts/provider.fkc.md", read_text(kSource / "contracts" / "provider.fkc.md")};
}

ContractSet load(std::vector<SourceText> sources) { return load_contract_set(sources); }

// ---- the shipped contracts ------------------------------------------------------------------

TEST(FkcShipped, LoadAndCoverEveryFamily) {
  const auto& set = shipped_contracts();
  EXPECT_EQ(set.provider.name, "fuel-vulkan-kernels");
  EXPECT_EQ(set.provider.kernel_source, "vulkan-glsl");
  EXPECT_EQ(set.provider.link_registry, LinkRegistry::kSymbol);
  for (const char* k : {"pad_const_b1", "pad_reflect_b8", "pad_replicate_b2", "pad_backward_const_b4",
                        "pad_backward_reflect_f64", "pad_backward_replicate_bf16", "pad_backward_reflect_det_f16",
                        "pad_backward_replicate_det_f32", "masked_fill_b8"})
    EXPECT_NE(set.find(k), nullptr) << k;
  EXPECT_GE(set.contracts.size(), 36u);
}

TEST(FkcShipped, RegistryHoldsBothWaysAgainstTheSpirv) {
  const auto problems = check_shipped();
  for (const auto& p : problems) ADD_FAILURE() << p.str();
  EXPECT_EQ(ENTRY_POINTS.all().size(), shipped_contracts().contracts.size());
}

TEST(FkcShipped, EmbeddedTextMatchesTheSourceTree) {
  const auto from_tree = read_contract_dir(kSource / "contracts");
  const auto embedded = embedded_contract_sources();
  ASSERT_EQ(from_tree.size(), embedded.size());
  for (std::size_t i = 0; i < embedded.size(); ++i) {
    EXPECT_EQ(embedded[i].file, from_tree[i].file);
    EXPECT_EQ(embedded[i].text, from_tree[i].text) << embedded[i].file << " is stale: rebuild";
  }
}

TEST(FkcShipped, QueryApi) {
  const auto& c = require_contract("pad_reflect_b4");
  EXPECT_EQ(c.op_kind, OpKind::Pad);
  EXPECT_EQ(c.element_bytes, 4u);
  EXPECT_TRUE(c.data_input().accepts(DType::F32));
  EXPECT_TRUE(c.data_input().accepts(DType::U32));
  EXPECT_FALSE(c.data_input().accepts(DType::F64));
  EXPECT_TRUE(c.data_input().rank.contains(8));
  EXPECT_FALSE(c.data_input().rank.contains(9));
  EXPECT_FALSE(c.data_input().rank.contains(0));
  EXPECT_EQ(c.data_input().layout.strided, LayoutAcceptance::Rejected);
  EXPECT_EQ(c.caps.awkward_layout_strategy, AwkwardLayoutStrategy::RequiresContiguous);
  EXPECT_EQ(c.determinism, Determinism::Bitwise);
  EXPECT_EQ(c.link.push_constant_bytes, 28u);
  auto s = c.base_symbols();
  s["n_out"] = 100;
  s["n_in"] = 60;
  EXPECT_DOUBLE_EQ(c.cost.bytes_moved->evaluate(s), 800.0);
  EXPECT_FALSE(c.cost.overhead_ns.has_value());

  const auto& atomic = require_contract("pad_backward_reflect_f64");
  EXPECT_EQ(atomic.determinism, Determinism::Nondeterministic);
  EXPECT_EQ(atomic.outputs[0].aliasing, Aliasing::Accumulate);
  EXPECT_EQ(atomic.outputs[0].prefill, Prefill::Zero);
  EXPECT_TRUE(atomic.requires_feature(Feature::ShaderBufferFloat64AtomicAdd));
  EXPECT_FALSE(atomic.requires_feature(Feature::ShaderBufferInt64Atomics));
  EXPECT_TRUE(
      require_contract("pad_backward_reflect_portable_f64").requires_feature(Feature::ShaderBufferInt64Atomics));

  const auto& det = require_contract("pad_backward_reflect_det_f16");
  EXPECT_EQ(det.determinism, Determinism::Bitwise);
  EXPECT_EQ(det.outputs[0].prefill, Prefill::None);
  EXPECT_EQ(det.element_bytes, 2u);

  const auto& mf = require_contract("masked_fill_b1");
  EXPECT_TRUE(mf.data_input().rank.any);
  EXPECT_TRUE(mf.find_input("mask")->accepts(DType::Bool));
  EXPECT_EQ(contracts_for(OpKind::MaskedFill).size(), 4u);

  EXPECT_EQ(find_contract("pad_circular_b4"), nullptr);
  expect_error(ErrorCode::NoKernel, [] { require_contract("pad_circular_b4"); });
}

TEST(FkcShipped, DumpRoundTripsThroughTheLoader) {
  // The canonical YAML `fvk show` prints is itself a valid block of the schema.
  const auto& c = require_contract("masked_fill_b2");
  auto tree = to_json(c, std::nullopt);
  tree["kernel_revision_hash"] = "auto";
  const std::string doc = "## masked_fill_b2\n\n```fkc\n" + to_yaml(tree) + "```\n";
  const auto set = load({provider_source(), {"roundtrip.fkc.md", doc}});
  ASSERT_EQ(set.contracts.size(), 1u);
  EXPECT_EQ(to_json(set.contracts[0], std::nullopt), to_json(c, std::nullopt));
}

// ---- formulas -------------------------------------------------------------------------------

Formula parse(const std::string& text) { return Formula::parse(text, {"test", 1}, "formula"); }

TEST(FkcFormula, EvaluatesWithPrecedenceAndParentheses) {
  const SymbolValues v{{"n_out", 10}, {"n_in", 4}, {"dtype_bytes", 2}, {"n", 7}, {"rank", 3}};
  EXPECT_DOUBLE_EQ(parse("(n_out + n_in) * dtype_bytes").evaluate(v), 28);
  EXPECT_DOUBLE_EQ(parse("n_out + n_in * dtype_bytes").evaluate(v), 18);
  EXPECT_DOUBLE_EQ(parse("2 * n * dtype_bytes + n").evaluate(v), 35);
  EXPECT_DOUBLE_EQ(parse("n_out - n_in - 1").evaluate(v), 5);
  EXPECT_DOUBLE_EQ(parse("n_out / 4 / 2").evaluate(v), 1.25);
  EXPECT_DOUBLE_EQ(parse("-(rank - 5)").evaluate(v), 2);
  EXPECT_DOUBLE_EQ(parse("0").evaluate({}), 0);
}

TEST(FkcFormula, CanonicalText) {
  EXPECT_EQ(parse("( n_out+n_in )*dtype_bytes").str(), "(n_out + n_in) * dtype_bytes");
  EXPECT_EQ(parse("((n_out)) * (2 * dtype_bytes)").str(), "n_out * (2 * dtype_bytes)");
  EXPECT_EQ(parse("n_out - (n_in - 1)").str(), "n_out - (n_in - 1)");
  EXPECT_EQ(parse("(n_out - n_in) - 1").str(), "n_out - n_in - 1");
}

TEST(FkcFormula, ErrorsNameTheLocationAndTheCause) {
  const auto unknown = expect_error(ErrorCode::ContractError, [] {
    Formula::parse("n_out * width", {"x.fkc.md", 12}, "cost.flops");
  });
  EXPECT_THAT(unknown, HasSubstr("x.fkc.md:12: cost.flops"));
  EXPECT_THAT(unknown, HasSubstr("unknown symbol 'width'"));
  for (const char* bad : {"", "n_out +", "(n_out", "n_out)", "n_out n_in", "2..5", "n_out % 2", "*3"})
    expect_error(ErrorCode::ContractError, [&] { parse(bad); });
}

// Found by hand while fuzzing (fuzz/fuzz_formula): parsing, printing, evaluating and destroying
// recurse per level, so 100,000 parentheses, unary minuses or terms of a sum overflowed the stack.
// Beyond 256 levels the formula is a ContractError naming the limit; 256 still parse.
TEST(FkcFormula, DepthIsLimitedInsteadOfOverflowingTheStack) {
  const auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  const int n = 100000;
  EXPECT_THAT(expect_error(ErrorCode::ContractError, [&] { parse(repeat("(", n) + "n" + repeat(")", n)); }),
              HasSubstr("nested more than 256 levels deep"));
  EXPECT_THAT(expect_error(ErrorCode::ContractError, [&] { parse(repeat("-", n) + "n"); }),
              HasSubstr("nested more than 256 levels deep"));
  EXPECT_THAT(expect_error(ErrorCode::ContractError, [&] { parse("n" + repeat(" + n", n)); }),
              HasSubstr("more than 256 operators deep"));
  EXPECT_DOUBLE_EQ(parse(repeat("(", 256) + "n" + repeat(")", 256)).evaluate({{"n", 3}}), 3);
  EXPECT_DOUBLE_EQ(parse(repeat("-", 256) + "n").evaluate({{"n", 3}}), 3);
  EXPECT_DOUBLE_EQ(parse("n" + repeat(" + n", 256)).evaluate({{"n", 1}}), 257);
}

TEST(FkcFormula, EvaluationNeedsEverySymbol) {
  expect_error(ErrorCode::InvalidArgument, [] { parse("n_out * dtype_bytes").evaluate({{"n_out", 3}}); });
  expect_error(ErrorCode::InvalidArgument, [] {
    parse("n_out / (n_in - n_in)").evaluate({{"n_out", 3}, {"n_in", 2}});
  });
}

// ---- revision hash --------------------------------------------------------------------------

std::string pad_section() {
  const auto text = read_text(kSource / "contracts" / "pad.fkc.md");
  return text;
}

const Contract& only(const ContractSet& s, const std::string& kernel) {
  const auto* c = s.find(kernel);
  if (!c) throw std::runtime_error("no " + kernel);
  return *c;
}

TEST(FkcRevisionHash, StableAndSensitiveToKernelAndContractOnly) {
  const std::vector<std::uint32_t> words = {0x07230203, 0x00010500, 0, 10, 0, 0x00020011, 1};
  const std::vector<embedded::Spirv> spirv = {words};
  auto base = load({provider_source(), {"contracts/pad.fkc.md", pad_section()}});
  const auto& c = only(base, "pad_const_b4");
  const auto h = kernel_revision_hash(base.provider, c, spirv);
  EXPECT_EQ(h.size(), 16u);
  EXPECT_EQ(h, kernel_revision_hash(base.provider, c, spirv));

  // Reloading, or changing prose, comments and spacing only, keeps it.
  auto prose = pad_section();
  prose.replace(prose.find("Constant-mode pad for 4-byte"), 8, "CONSTANT");
  prose.replace(prose.find("  fast_paths: []\n"), 17, "  fast_paths:   [ ]   # none yet\n");
  auto reloaded = load({provider_source(), {"elsewhere.fkc.md", prose}});
  EXPECT_EQ(kernel_revision_hash(reloaded.provider, only(reloaded, "pad_const_b4"), spirv), h);

  // One SPIR-V word changes it.
  auto words2 = words;
  words2.back() ^= 1;
  EXPECT_NE(kernel_revision_hash(base.provider, c, std::vector<embedded::Spirv>{words2}), h);
  // So does a second pass's module, and the same words cut into modules elsewhere.
  const std::vector<embedded::Spirv> two = {words, words2};
  EXPECT_NE(kernel_revision_hash(base.provider, c, two), h);
  const std::span<const std::uint32_t> all(words);
  EXPECT_NE(kernel_revision_hash(base.provider, c, std::vector<embedded::Spirv>{all.first(3), all.subspan(3)}),
            kernel_revision_hash(base.provider, c, std::vector<embedded::Spirv>{all.first(4), all.subspan(4)}));

  // One contract field changes it (the first alignment_bytes after the pad_const_b4 heading).
  auto edited = pad_section();
  const auto at = edited.find("alignment_bytes: 16", edited.find("## pad_const_b4"));
  edited.replace(at, 19, "alignment_bytes: 32");
  auto changed = load({provider_source(), {"contracts/pad.fkc.md", edited}});
  EXPECT_NE(kernel_revision_hash(changed.provider, only(changed, "pad_const_b4"), spirv), h);
  EXPECT_EQ(kernel_revision_hash(changed.provider, only(changed, "pad_const_b2"), spirv),
            kernel_revision_hash(base.provider, only(base, "pad_const_b2"), spirv));

  // So does the provider's revision_base.
  auto provider = base.provider;
  provider.revision_base += "+1";
  EXPECT_NE(kernel_revision_hash(provider, c, spirv), h);
}

TEST(FkcRevisionHash, ShippedHashesAreDistinct) {
  std::set<std::string> hashes;
  for (const auto& c : shipped_contracts().contracts) {
    if (ENTRY_POINTS.resolve(c.entry_point)) {
      EXPECT_TRUE(hashes.insert(revision_hash(c)).second) << c.kernel;
    }
  }
}

// ---- link registry against an explicit table ------------------------------------------------

TEST(FkcRegistry, KernelWithoutContractAndContractWithoutKernel) {
  const auto& set = shipped_contracts();
  std::vector<embedded::EmbeddedKernel> table(embedded::table().begin(), embedded::table().end());
  ASSERT_FALSE(table.empty());
  const auto dropped = table.back();
  table.pop_back();
  table.push_back({"pad_circular_b4", dropped.passes});
  const auto problems = check_links(set, table);
  bool no_contract = false, dangling = false;
  for (const auto& p : problems) {
    no_contract = no_contract || p.message.find("kernel pad_circular_b4 has no contract") != std::string::npos;
    dangling = dangling || (p.message.find(std::string(dropped.name)) != std::string::npos &&
                            p.message.find("dangling") != std::string::npos && p.loc.line > 0);
  }
  EXPECT_TRUE(no_contract);
  EXPECT_TRUE(dangling);
}

// ---- broken fixtures ------------------------------------------------------------------------

struct Expectation {
  int line = 0;
  std::string text;
  bool link_problem = false;  // expect-problem: found by check_links, not by the loader
};

Expectation expectation_of(const std::string& text) {
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    for (const auto& [marker, link] : {std::pair{"# expect-error: ", false}, std::pair{"# expect-problem: ", true}}) {
      const auto at = line.find(marker);
      if (at != std::string::npos) return {line_no, line.substr(at + std::string(marker).size()), link};
    }
  }
  return {};
}

class FkcBadFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(FkcBadFixture, FailsWithItsOwnRuleAtItsOwnLine) {
  const std::string file = std::string("tests/fkc_bad/") + GetParam() + ".fkc.md";
  const auto text = read_text(kSource / file);
  ASSERT_FALSE(text.empty()) << file;
  const auto expect = expectation_of(text);
  ASSERT_GT(expect.line, 0) << file << " has no expect-error/expect-problem marker";
  const std::string where = file + ":" + std::to_string(expect.line) + ": ";

  if (!expect.link_problem) {
    const auto msg = expect_error(ErrorCode::ContractError, [&] { load({provider_source(), {file, text}}); });
    EXPECT_THAT(msg, HasSubstr(where));
    EXPECT_THAT(msg, HasSubstr(expect.text));
    return;
  }
  const auto set = load({provider_source(), {file, text}});
  bool found = false;
  for (const auto& p : check_links(set, embedded::table()))
    found = found || (p.str().find(where) != std::string::npos && p.message.find(expect.text) != std::string::npos);
  EXPECT_TRUE(found) << "no link problem at " << where << " saying " << expect.text;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FkcBadFixture,
                         ::testing::Values("unknown_key", "missing_key", "wrong_width", "bad_formula", "unknown_symbol",
                                           "dangling_entry_point", "duplicate_kernel", "bitwise_not_bit_stable",
                                           "accumulate_in_place", "accumulate_without_zero_fill", "not_audited",
                                           "bad_rank", "bad_vocab", "dangling_shape_rule", "dangling_shape_constraint",
                                           "push_constant_mismatch", "wrong_type", "heading_mismatch",
                                           // Found by a hunt through the loader (session 63): each loaded
                                           // before, or failed later without a file:line.
                                           "second_yaml_document", "escape_not_utf8", "blurb_line_break",
                                           "formula_divides_by_zero", "part_name_twice", "string_tagged_int",
                                           "push_constant_unaligned"));

TEST(FkcBadFixture, EveryFixtureIsListed) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kSource / "tests" / "fkc_bad"))
    n += e.path().filename().string().ends_with(".fkc.md");
  EXPECT_EQ(n, 25u);
}

// A blurb's 200 are characters, not bytes: 200 two-byte characters load, 201 do not (150 were
// refused before, as 300 bytes).
TEST(FkcBlurb, AtMost200CharactersCountedAsCharacters) {
  const std::string file = "tests/fkc_bad/part_name_twice.fkc.md";
  std::string text = read_text(kSource / file);
  text = text.replace(text.find("in_shape], note"), 8, "left_pad");  // mended: parts in, out, left... once each
  const auto with_blurb = [&](std::size_t characters) {
    std::string blurb;
    for (std::size_t i = 0; i < characters; ++i) blurb += "\xC3\xA9";  // e acute
    std::string t = text;
    const auto at = t.find("blurb: \"");
    return t.replace(at, t.find('\n', at) - at, "blurb: \"" + blurb + "\"");
  };
  EXPECT_NO_THROW(load({provider_source(), {file, with_blurb(200)}}));
  EXPECT_THAT(expect_error(ErrorCode::ContractError,
                           [&] {
                             load({provider_source(), {file, with_blurb(201)}});
                           }),
              HasSubstr("it has 201 characters"));
}

TEST(FkcDocument, StructureErrors) {
  const auto no_heading = expect_error(ErrorCode::ContractError, [] {
    load({provider_source(), {"d.fkc.md", "text\n```fkc\nkernel: x\n```\n"}});
  });
  EXPECT_THAT(no_heading, HasSubstr("d.fkc.md:2: an fkc block must sit under"));
  const auto open = expect_error(ErrorCode::ContractError, [] {
    load({provider_source(), {"d.fkc.md", "## x\n\n```fkc\nkernel: x\n"}});
  });
  EXPECT_THAT(open, HasSubstr("d.fkc.md:3: fenced block is never closed"));
  const auto two = expect_error(ErrorCode::ContractError, [] { load({provider_source(), provider_source()}); });
  EXPECT_THAT(two, HasSubstr("second provider front matter"));
  const auto none = expect_error(ErrorCode::ContractError, [] { load({{"d.fkc.md", "# nothing\n"}}); });
  EXPECT_THAT(none, HasSubstr("no provider front matter"));
  const auto yaml = expect_error(ErrorCode::ContractError, [] {
    load({provider_source(), {"d.fkc.md", "## x\n\n```fkc\nkernel: [x\n```\n"}});
  });
  EXPECT_THAT(yaml, HasSubstr("d.fkc.md:"));
  EXPECT_THAT(yaml, HasSubstr("YAML syntax"));
}

// Fences as Markdown reads them (session 63's hunt): a prose block fenced with four backticks that
// quotes a line of three was ended by that line, and the splitter then took the rest of the file
// out of step (here: the contract's own block as prose, its closing fence as an opening never
// closed). Now only a run of the same character, at least as long and with nothing after it, closes
// a fence; a closing line of three backticks inside the fkc block's YAML cannot occur.
TEST(FkcDocument, FencesCloseAsInMarkdown) {
  const auto copy = read_text(kSource / "contracts" / "copy.fkc.md");
  const auto block = copy.find("```fkc");
  ASSERT_NE(block, std::string::npos);
  const std::string quoted =
      "````text\n```\nnot a contract\n```\n````\n\n~~~\n```\n~~~\n\n```fkc``` opens a block: inline code, prose\n\n";
  const auto set = load({provider_source(), {"copy.fkc.md", copy.substr(0, block) + quoted + copy.substr(block)}});
  ASSERT_EQ(set.contracts.size(), 1u);
  EXPECT_EQ(set.contracts[0].kernel, "copy_b4");
  // A longer fence is not closed by a shorter one.
  EXPECT_THAT(expect_error(ErrorCode::ContractError,
                           [] {
                             load({provider_source(), {"d.fkc.md", "## x\n\n````text\n```\n"}});
                           }),
              HasSubstr("d.fkc.md:3: fenced block is never closed"));
}

// Found by fuzz/fuzz_fkc: a byte that is not UTF-8 in a string (a Latin-1 µ in precision.notes) loaded,
// and the canonical JSON then threw nlohmann::json's type_error 316 out of the revision hash and
// `fvk contracts`. The document is refused at its line; well-formed UTF-8 loads and serializes.
TEST(FkcDocument, TextMustBeUtf8) {
  const auto copy = read_text(kSource / "contracts" / "copy.fkc.md");
  const auto notes = copy.find("A copy: exact.");
  ASSERT_NE(notes, std::string::npos);
  const auto line = 1 + std::count(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(notes), '\n');
  const auto with = [&](const std::string& bytes) {
    return copy.substr(0, notes) + "A copy: exact" + bytes + copy.substr(notes + std::string("A copy: exact").size());
  };
  for (const std::string bad : {"\xB5", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82"}) {
    EXPECT_THAT(expect_error(ErrorCode::ContractError,
                             [&] {
                               load({provider_source(), {"copy.fkc.md", with(bad)}});
                             }),
                HasSubstr(fmt::format("copy.fkc.md:{}: not UTF-8 text: byte 0x{:02X}", line,
                                      static_cast<unsigned char>(bad[0]))));
  }
  const auto set = load({provider_source(), {"copy.fkc.md", with("\xC2\xB5 \xF0\x9F\x99\x82")}});
  ASSERT_EQ(set.contracts.size(), 1u);
  EXPECT_THAT(to_json(set.contracts[0], std::nullopt).dump(), HasSubstr("exact\xC2\xB5"));
}

}  // namespace
}  // namespace fvk::fkc
