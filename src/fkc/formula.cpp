#include "fkc/formula.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <variant>

#include "fvk/error.hpp"

namespace fvk::fkc {

namespace {
constexpr std::string_view kSymbols[] = {"n_in", "n_out", "n", "dtype_bytes", "rank"};
// Parsing, printing, evaluating and destroying a formula recurse once per level: per parenthesis and
// unary minus, and per operator of a chain (1 + 1 + 1 is two levels). Contract formulas have a few
// levels; the limit keeps any text inside the stack (4,000 parentheses overflowed it under ASan).
constexpr int kMaxDepth = 256;
}  // namespace

std::span<const std::string_view> known_symbols() { return kSymbols; }

struct Formula::Node {
  enum class Kind { Number, Symbol, Neg, Add, Sub, Mul, Div } kind;
  double number = 0;
  std::string text;  // the literal's or symbol's spelling
  std::shared_ptr<const Node> lhs, rhs;
  int height = 0;  // levels of operators from this node down (0: a number or a symbol)
};

namespace {

using NodePtr = std::shared_ptr<const Formula::Node>;
using Kind = Formula::Node::Kind;

// Recursive descent over:  expr := term (('+'|'-') term)* ; term := unary (('*'|'/') unary)* ;
// unary := '-' unary | primary ; primary := number | symbol | '(' expr ')'.
class Parser {
 public:
  Parser(std::string_view text, const SourceLoc& loc, std::string_view what) : text_(text), loc_(loc), what_(what) {}

  NodePtr parse() {
    skip_space();
    if (pos_ == text_.size()) error("empty formula");
    NodePtr root = expr();
    skip_space();
    if (pos_ != text_.size()) error(fmt::format("unexpected '{}'", text_[pos_]));
    return root;
  }

 private:
  [[noreturn]] void error(const std::string& why) const {
    contract_error(loc_, fmt::format("{}: formula \"{}\": {} at column {}", what_, text_, why, pos_ + 1));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  NodePtr make(Kind kind, NodePtr lhs, NodePtr rhs = nullptr) const {
    auto n = std::make_shared<Formula::Node>();
    n->height = 1 + std::max(lhs->height, rhs ? rhs->height : 0);
    if (n->height > kMaxDepth) error(fmt::format("more than {} operators deep", kMaxDepth));
    n->kind = kind;
    n->lhs = std::move(lhs);
    n->rhs = std::move(rhs);
    return n;
  }

  NodePtr expr() {
    NodePtr lhs = term();
    for (;;) {
      if (eat('+'))
        lhs = make(Kind::Add, lhs, term());
      else if (eat('-'))
        lhs = make(Kind::Sub, lhs, term());
      else
        return lhs;
    }
  }

  NodePtr term() {
    NodePtr lhs = unary();
    for (;;) {
      if (eat('*'))
        lhs = make(Kind::Mul, lhs, unary());
      else if (eat('/')) {
        NodePtr rhs = unary();
        if (const auto v = constant(*rhs); v && *v == 0) error("divides by a constant zero");
        lhs = make(Kind::Div, lhs, rhs);
      } else
        return lhs;
    }
  }

  // The value of a subformula without symbols, else nullopt (folded at load time, so that a division
  // by a constant zero is refused there and not when the planner first evaluates the formula).
  static std::optional<double> constant(const Formula::Node& n) {
    if (n.kind == Kind::Number) return n.number;
    if (n.kind == Kind::Symbol) return std::nullopt;
    const auto a = constant(*n.lhs);
    if (!a) return std::nullopt;
    if (n.kind == Kind::Neg) return -*a;
    const auto b = constant(*n.rhs);
    if (!b) return std::nullopt;
    switch (n.kind) {
      case Kind::Add: return *a + *b;
      case Kind::Sub: return *a - *b;
      case Kind::Mul: return *a * *b;
      case Kind::Div: return *b == 0 ? std::nullopt : std::optional<double>(*a / *b);
      default: return std::nullopt;
    }
  }

  NodePtr unary() {
    if (!eat('-')) return primary();
    enter();
    NodePtr operand = unary();
    --nesting_;
    return make(Kind::Neg, std::move(operand));
  }

  // One more level of parentheses or unary minus, which the parser recurses into.
  void enter() {
    if (++nesting_ > kMaxDepth) error(fmt::format("nested more than {} levels deep", kMaxDepth));
  }

  NodePtr primary() {
    skip_space();
    if (pos_ == text_.size()) error("unexpected end");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      enter();
      NodePtr inner = expr();
      if (!eat(')')) error("missing ')'");
      --nesting_;
      return inner;
    }
    auto n = std::make_shared<Formula::Node>();
    const std::size_t start = pos_;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.'))
        ++pos_;
      n->kind = Kind::Number;
      n->text = std::string(text_.substr(start, pos_ - start));
      const auto [end, ec] = std::from_chars(n->text.data(), n->text.data() + n->text.size(), n->number);
      if (ec != std::errc() || end != n->text.data() + n->text.size()) {
        pos_ = start;
        error(fmt::format("malformed number '{}'", n->text));
      }
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      n->kind = Kind::Symbol;
      n->text = std::string(text_.substr(start, pos_ - start));
      const auto syms = known_symbols();
      if (std::find(syms.begin(), syms.end(), n->text) == syms.end()) {
        pos_ = start;
        error(fmt::format("unknown symbol '{}' (known: {})", n->text, fmt::join(syms, ", ")));
      }
      return n;
    }
    error(fmt::format("unexpected '{}'", c));
  }

  std::string_view text_;
  const SourceLoc& loc_;
  std::string_view what_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
};

double eval(const Formula::Node& n, const SymbolValues& values) {
  switch (n.kind) {
    case Kind::Number: return n.number;
    case Kind::Symbol: {
      const auto it = values.find(n.text);
      if (it == values.end()) fail(ErrorCode::InvalidArgument, fmt::format("formula symbol '{}' has no value", n.text));
      return it->second;
    }
    case Kind::Neg: return -eval(*n.lhs, values);
    case Kind::Add: return eval(*n.lhs, values) + eval(*n.rhs, values);
    case Kind::Sub: return eval(*n.lhs, values) - eval(*n.rhs, values);
    case Kind::Mul: return eval(*n.lhs, values) * eval(*n.rhs, values);
    case Kind::Div: {
      const double d = eval(*n.rhs, values);
      if (d == 0) fail(ErrorCode::InvalidArgument, "formula divides by zero");
      return eval(*n.lhs, values) / d;
    }
  }
  return 0;
}

int precedence(Kind k) {
  switch (k) {
    case Kind::Add:
    case Kind::Sub: return 1;
    case Kind::Mul:
    case Kind::Div: return 2;
    case Kind::Neg: return 3;
    default: return 4;
  }
}

std::string print(const Formula::Node& n) {
  auto wrap = [](const Formula::Node& child, bool paren) { return paren ? "(" + print(child) + ")" : print(child); };
  switch (n.kind) {
    case Kind::Number:
    case Kind::Symbol: return n.text;
    case Kind::Neg: return "-" + wrap(*n.lhs, precedence(n.lhs->kind) < 3);
    default: {
      const char* op = n.kind == Kind::Add ? " + " : n.kind == Kind::Sub ? " - " : n.kind == Kind::Mul ? " * " : " / ";
      const int p = precedence(n.kind);
      // Left-associative: the right operand needs parentheses at equal precedence.
      return wrap(*n.lhs, precedence(n.lhs->kind) < p) + op + wrap(*n.rhs, precedence(n.rhs->kind) <= p);
    }
  }
}

}  // namespace

Formula Formula::parse(std::string_view text, const SourceLoc& loc, std::string_view what) {
  Formula f;
  f.root_ = Parser(text, loc, what).parse();
  return f;
}

double Formula::evaluate(const SymbolValues& values) const { return eval(*root_, values); }

std::string Formula::str() const { return print(*root_); }

}  // namespace fvk::fkc
