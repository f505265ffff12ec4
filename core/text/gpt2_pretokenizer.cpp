#include "core/text/gpt2_pretokenizer.h"

#include "core/text/unicode_props.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

enum class Kind { Space, Letter, Number, Other };

Kind kindOf(char32_t c) {
  if (unicode::isWhitespace(c)) return Kind::Space;
  if (unicode::isLetter(c)) return Kind::Letter;
  if (unicode::isNumber(c)) return Kind::Number;
  return Kind::Other;
}

/// Length in code points of a contraction ('s 't 'm 'd 're 've 'll) starting at i, or 0.
std::size_t contraction(const std::vector<char32_t>& cp, std::size_t i) {
  if (cp[i] != U'\'' || i + 1 >= cp.size()) return 0;
  const char32_t a = cp[i + 1];
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if (i + 2 >= cp.size()) return 0;
  const char32_t b = cp[i + 2];
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

/// Length of the match at i, in code points (≥ 1).
std::size_t matchAt(const std::vector<char32_t>& cp, const std::vector<Kind>& kind, std::size_t i) {
  const std::size_t n = cp.size();
  if (std::size_t len = contraction(cp, i)) return len;
  // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional ASCII space, then a run of one kind.
  const std::size_t j = (cp[i] == U' ' && i + 1 < n && kind[i + 1] != Kind::Space) ? i + 1 : i;
  if (kind[j] != Kind::Space) {
    std::size_t e = j + 1;
    while (e < n && kind[e] == kind[j]) ++e;
    return e - i;
  }
  // `\s+(?!\S)`: the whitespace run, minus its last character when a non-space follows (that one
  // then joins the next word as its optional space, or stands alone via `\s+`).
  std::size_t e = i;
  while (e < n && kind[e] == Kind::Space) ++e;
  if (e == n || e - i == 1) return e - i;
  return e - 1 - i;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> gpt2PreTokenize(std::string_view text) {
  std::vector<char32_t> cp;
  std::vector<std::size_t> bytePos;  // byte offset of each code point, plus the end
  for (std::size_t pos = 0; pos < text.size();) {
    const utf8::CodePoint c = utf8::decode(text, pos);
    cp.push_back(c.valid ? c.value : char32_t(0xFFFD));
    bytePos.push_back(pos);
    pos += c.size;
  }
  bytePos.push_back(text.size());
  std::vector<Kind> kind(cp.size());
  for (std::size_t i = 0; i < cp.size(); ++i) kind[i] = kindOf(cp[i]);

  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  for (std::size_t i = 0; i < cp.size();) {
    const std::size_t len = matchAt(cp, kind, i);
    pieces.emplace_back(bytePos[i], bytePos[i + len]);
    i += len;
  }
  return pieces;
}

}  // namespace attnlab
