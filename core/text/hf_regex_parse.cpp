// Parser of hf_regex.h: pattern text → syntax tree (hf_regex_ast.h).
#include <string>

#include "core/base/errors.h"
#include "core/text/hf_regex_ast.h"
#include "core/text/unicode_norm.h"
#include "core/text/utf8.h"

namespace attnlab::hfregex {
namespace {

using unicode::Category;

constexpr int kMaxRepeat = 1000;  // {m,n} bounds beyond this are refused
// Groups nested deeper than this are refused: parsing, compiling and freeing the tree each recurse once per level,
// and 20,000 levels overflowed the stack (a crafted tokenizer.json crashed `tokenize` and the window). Real
// tokenizers nest 2 or 3 deep.
constexpr int kMaxGroupDepth = 500;

std::uint32_t bit(Category c) { return 1u << static_cast<int>(c); }
std::uint32_t range(Category a, Category b) {
  std::uint32_t m = 0;
  for (int k = static_cast<int>(a); k <= static_cast<int>(b); ++k) m |= 1u << k;
  return m;
}
const std::uint32_t kAllCategories = (1u << unicode::kCategoryCount) - 1;
const std::uint32_t kWordCategories =
    range(Category::Lu, Category::Me) | bit(Category::Nd) | bit(Category::Pc);  // Oniguruma's \w

/// Category mask of a \p{…} name, or 0 when the name is not a general category.
std::uint32_t categoryMask(const std::string& name) {
  static const char* kShort[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl",
                                 "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc",
                                 "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
  for (int k = 0; k < unicode::kCategoryCount; ++k)
    if (name == kShort[k]) return 1u << k;
  if (name == "L" || name == "Letter") return range(Category::Lu, Category::Lo);
  if (name == "LC" || name == "L&") return range(Category::Lu, Category::Lt);
  if (name == "M" || name == "Mark") return range(Category::Mn, Category::Me);
  if (name == "N" || name == "Number") return range(Category::Nd, Category::No);
  if (name == "P" || name == "Punctuation") return range(Category::Pc, Category::Po);
  if (name == "S" || name == "Symbol") return range(Category::Sm, Category::So);
  if (name == "Z" || name == "Separator") return range(Category::Zs, Category::Zp);
  if (name == "C" || name == "Other") return range(Category::Cc, Category::Cn);
  if (name == "Any") return kAllCategories;
  return 0;
}

class Parser {
 public:
  Parser(const std::string& pattern, const std::string& where, Program& prog)
      : where_(where), pattern_(pattern), prog_(prog) {
    for (std::size_t pos = 0; pos < pattern.size();) {
      const utf8::CodePoint cp = utf8::decode(pattern, pos);
      if (!cp.valid) fail("invalid UTF-8");
      s_ += cp.value;
      pos += cp.size;
    }
  }

  NodePtr parseAll() {
    NodePtr n = parseAlt(false);
    if (i_ < s_.size()) fail("unbalanced ')'");
    return n;
  }

  [[noreturn]] void fail(const std::string& why) const {
    // A pattern of kilobytes would bury the reason: its start is enough to find it.
    std::size_t cut = 0;
    while (cut < pattern_.size() && cut < 120) cut += utf8::decode(pattern_, cut).size;  // whole code points
    const std::string shown = cut < pattern_.size() ? pattern_.substr(0, cut) + "…" : pattern_;
    throw InputError(where_ + ": regex \"" + shown + "\": " + why);
  }

 private:
  bool more() const { return i_ < s_.size(); }
  char32_t peek() const { return s_[i_]; }
  bool eat(char32_t c) {
    if (!more() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  NodePtr make(Kind k) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    n->icase = icase_;
    return n;
  }

  NodePtr parseAlt(bool inGroup) {
    NodePtr alt = make(Kind::Alt);
    alt->kids.push_back(parseConcat());
    while (eat(U'|')) alt->kids.push_back(parseConcat());
    if (inGroup && !eat(U')')) fail("missing ')'");
    return alt->kids.size() == 1 ? std::move(alt->kids[0]) : std::move(alt);
  }

  NodePtr parseConcat() {
    NodePtr cat = make(Kind::Concat);
    while (more() && peek() != U'|' && peek() != U')') {
      NodePtr atom = parseAtom();
      if (atom) cat->kids.push_back(parseQuantifiers(std::move(atom)));
    }
    return cat;
  }

  /// Reads {m}, {m,}, {m,n}, {,n} at i_; false (nothing consumed) when it is not a quantifier.
  bool parseBraces(int& min, int& max) {
    std::size_t j = i_ + 1;
    auto number = [&](int& v) {
      const std::size_t start = j;
      long long x = 0;
      while (j < s_.size() && s_[j] >= U'0' && s_[j] <= U'9')
        x = std::min<long long>(x * 10 + (s_[j++] - U'0'), 1 << 30);
      v = static_cast<int>(x);
      return j > start;
    };
    const bool hasMin = number(min);
    if (j < s_.size() && s_[j] == U',') {
      ++j;
      if (!number(max)) max = -1;
      if (!hasMin) min = 0;
      if (!hasMin && max < 0) return false;
    } else {
      if (!hasMin) return false;
      max = min;
    }
    if (j >= s_.size() || s_[j] != U'}') return false;
    if (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && max < min)) fail("repetition bounds out of range");
    i_ = j + 1;
    return true;
  }

  NodePtr parseQuantifiers(NodePtr atom) {
    while (more()) {
      int min = 0, max = -1;
      const char32_t q = peek();
      if (q == U'?')
        min = 0, max = 1, ++i_;
      else if (q == U'*')
        min = 0, max = -1, ++i_;
      else if (q == U'+')
        min = 1, max = -1, ++i_;
      else if (q != U'{' || !parseBraces(min, max))
        return atom;
      if (atom->kind == Kind::Look || atom->kind == Kind::Assert) fail("quantifier after an assertion");
      NodePtr rep = make(Kind::Repeat);
      rep->min = min;
      rep->max = max;
      if (eat(U'?'))
        rep->greedy = false;
      else if (more() && peek() == U'+')
        fail("possessive quantifiers are not supported");
      rep->kids.push_back(std::move(atom));
      atom = std::move(rep);
    }
    return atom;
  }

  NodePtr parseGroup() {
    if (depth_ >= kMaxGroupDepth) fail("groups nested more than " + std::to_string(kMaxGroupDepth) + " deep");
    ++depth_;
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    const bool saved = icase_;
    NodePtr n;
    if (eat(U'?')) {
      if (eat(U':')) {
        n = parseAlt(true);
      } else if (eat(U'=') || (more() && peek() == U'!')) {
        const bool negate = eat(U'!');
        n = make(Kind::Look);
        n->negate = negate;
        n->kids.push_back(parseAlt(true));
      } else if (more() && (peek() == U'i' || peek() == U'-')) {
        const bool on = !eat(U'-');
        if (!eat(U'i')) fail("unsupported group flag");
        icase_ = on;
        if (eat(U')')) return nullptr;  // (?i) switches the rest of the enclosing group
        if (!eat(U':')) fail("unsupported group flag");
        n = parseAlt(true);
      } else if (eat(U'<') && more() && peek() != U'=' && peek() != U'!') {
        while (more() && peek() != U'>') ++i_;  // named group: its name does not matter here
        if (!eat(U'>')) fail("unterminated group name");
        n = parseAlt(true);
      } else {
        fail("unsupported group kind (look-behind, atomic, comment or flags)");
      }
    } else {
      n = parseAlt(true);
    }
    icase_ = saved;
    return n;
  }

  NodePtr assertNode(AssertKind k) {
    NodePtr n = make(Kind::Assert);
    n->assert = k;
    return n;
  }

  NodePtr classNode(CharClass c) {
    NodePtr n = make(Kind::Class);
    c.icase = icase_;
    n->cls = static_cast<int>(prog_.classes.size());
    prog_.classes.push_back(std::move(c));
    return n;
  }

  NodePtr parseAtom() {
    const char32_t c = s_[i_++];
    switch (c) {
      case U'(':
        return parseGroup();
      case U'[':
        return classNode(parseClass());
      case U'.':
        return make(Kind::Any);
      case U'^':
        return assertNode(AssertKind::LineBegin);
      case U'$':
        return assertNode(AssertKind::LineEnd);
      case U'*':
      case U'+':
      case U'?':
        fail("quantifier without anything to repeat");
      case U'\\':
        break;
      default: {
        NodePtr n = make(Kind::Char);
        n->c = c;
        return n;
      }
    }
    if (!more()) fail("trailing backslash");
    const char32_t e = peek();
    if (e == U'A') return ++i_, assertNode(AssertKind::TextBegin);
    if (e == U'z') return ++i_, assertNode(AssertKind::TextEnd);
    if (e == U'Z') return ++i_, assertNode(AssertKind::TextEndNewline);
    if (e == U'b') return ++i_, assertNode(AssertKind::Word);
    if (e == U'B') return ++i_, assertNode(AssertKind::NotWord);
    CharClass cls;
    char32_t lit = 0;
    if (parseEscape(cls, lit)) return classNode(std::move(cls));
    NodePtr n = make(Kind::Char);
    n->c = lit;
    return n;
  }

  /// After a backslash: a class escape (\s \d \w \p{…} and negations) fills `cls` and returns true; a
  /// literal sets `lit` and returns false.
  bool parseEscape(CharClass& cls, char32_t& lit) {
    const char32_t e = s_[i_++];
    switch (e) {
      case U's':
        cls.space = true;
        return true;
      case U'S':
        cls.notSpace = true;
        return true;
      case U'd':
        cls.categories = bit(Category::Nd);
        return true;
      case U'D':
        cls.categories = kAllCategories & ~bit(Category::Nd);
        return true;
      case U'w':
        cls.categories = kWordCategories;
        return true;
      case U'W':
        cls.categories = kAllCategories & ~kWordCategories;
        return true;
      case U'p':
      case U'P':
        cls.categories = parseProperty(e == U'P');
        return true;
      case U'n':
        lit = U'\n';
        return false;
      case U'r':
        lit = U'\r';
        return false;
      case U't':
        lit = U'\t';
        return false;
      case U'f':
        lit = U'\f';
        return false;
      case U'v':
        lit = U'\v';
        return false;
      case U'a':
        lit = 7;
        return false;
      case U'e':
        lit = 27;
        return false;
      case U'0':
        lit = 0;
        return false;
      case U'x':
        lit = parseHex(2, true);
        return false;
      case U'u':
        lit = parseHex(4, false);
        return false;
      default:
        break;
    }
    if ((e >= U'a' && e <= U'z') || (e >= U'A' && e <= U'Z') || (e >= U'0' && e <= U'9'))
      fail(std::string("unsupported escape \\") + static_cast<char>(e));
    lit = e;
    return false;
  }

  char32_t parseHex(int digits, bool braces) {
    const bool braced = braces && eat(U'{');
    std::uint32_t v = 0;
    int n = 0;
    while (more() && (braced || n < digits)) {
      const char32_t h = peek();
      int d = h >= U'0' && h <= U'9'   ? int(h - U'0')
              : h >= U'a' && h <= U'f' ? int(h - U'a' + 10)
              : h >= U'A' && h <= U'F' ? int(h - U'A' + 10)
                                       : -1;
      if (d < 0) break;
      v = v * 16 + static_cast<std::uint32_t>(d);
      ++i_;
      if (++n > 8) fail("hex escape too long");
    }
    if (n == 0 || (braced && !eat(U'}')) || v > 0x10FFFF) fail("invalid hex escape");
    return static_cast<char32_t>(v);
  }

  std::uint32_t parseProperty(bool negated) {
    std::string name;
    if (eat(U'{')) {
      if (eat(U'^')) negated = !negated;
      while (more() && peek() != U'}') utf8::append(name, s_[i_++]);
      if (!eat(U'}')) fail("unterminated \\p{");
    } else if (more()) {
      utf8::append(name, s_[i_++]);
    }
    const std::uint32_t mask = categoryMask(name);
    if (mask == 0) fail("unsupported property \\p{" + name + "} (only general categories are supported)");
    return negated ? kAllCategories & ~mask : mask;
  }

  CharClass parseClass() {
    CharClass cls;
    cls.negate = eat(U'^');
    bool first = true;
    while (more() && (peek() != U']' || first)) {
      first = false;
      char32_t lo = 0;
      if (!classAtom(cls, lo)) continue;
      if (i_ + 1 < s_.size() && peek() == U'-' && s_[i_ + 1] != U']') {
        ++i_;
        char32_t hi = 0;
        if (!classAtom(cls, hi)) fail("class range ends in a class escape");
        if (hi < lo) fail("class range out of order");
        cls.ranges.emplace_back(lo, hi);
      } else {
        cls.ranges.emplace_back(lo, lo);
      }
    }
    if (!eat(U']')) fail("missing ']'");
    return cls;
  }

  /// One class member: a literal (returned in `lit`, true) or a class escape merged into `cls` (false).
  bool classAtom(CharClass& cls, char32_t& lit) {
    const char32_t c = s_[i_++];
    if (c == U'[') fail("nested classes and POSIX brackets are not supported");
    if (c == U'&' && more() && peek() == U'&') fail("class intersection is not supported");
    if (c != U'\\') return lit = c, true;
    if (!more()) fail("trailing backslash");
    if (peek() == U'b') return ++i_, lit = 8, true;
    CharClass sub;
    if (!parseEscape(sub, lit)) return true;
    cls.categories |= sub.categories;
    cls.space |= sub.space;
    cls.notSpace |= sub.notSpace;
    return false;
  }

  std::string where_, pattern_;
  Program& prog_;
  std::u32string s_;
  std::size_t i_ = 0;
  bool icase_ = false;
  int depth_ = 0;  ///< groups open at i_
};

}  // namespace

NodePtr parse(const std::string& pattern, const std::string& where, Program& prog) {
  Parser parser(pattern, where, prog);
  return parser.parseAll();
}

}  // namespace attnlab::hfregex
