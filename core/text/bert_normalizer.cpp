#include "core/text/bert_normalizer.h"

#include <string>

#include "core/text/unicode_props.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

bool isControl(char32_t c) { return c != U'\t' && c != U'\n' && c != U'\r' && unicode::isOther(c); }

/// The normalised characters of one source character.
void normalizeChar(char32_t c, std::size_t b, std::size_t e, const BertNormalizerOptions& o,
                   std::vector<NormChar>& out) {
  if (o.cleanText) {
    if (c == 0 || c == 0xFFFD || isControl(c)) return;
    if (unicode::isWhitespace(c)) c = U' ';
  }
  std::u32string chars(1, c);
  if (o.stripAccents) {
    chars.clear();
    unicode::appendStripped(chars, c);
  }
  if (o.lowercase) {
    std::u32string lower;
    for (char32_t x : chars) unicode::appendLower(lower, x);
    chars.swap(lower);
  }
  const bool cjk = o.handleChineseChars && unicode::isCjkIdeograph(c);
  if (cjk) out.push_back({U' ', b, e});
  for (char32_t x : chars) out.push_back({x, b, e});
  if (cjk) out.push_back({U' ', b, e});
}

}  // namespace

bool isBertPunctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ||
         unicode::isPunctuation(c);
}

std::vector<std::vector<NormChar>> bertWords(std::string_view text, std::size_t base,
                                             const BertNormalizerOptions& options) {
  std::vector<NormChar> chars;
  for (std::size_t pos = 0; pos < text.size();) {
    const utf8::CodePoint cp = utf8::decode(text, pos);
    // An invalid byte decodes to U+FFFD, which cleaning drops like Hugging Face's does.
    normalizeChar(cp.value, base + pos, base + pos + cp.size, options, chars);
    pos += cp.size;
  }
  std::vector<std::vector<NormChar>> words;
  std::vector<NormChar> word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (const NormChar& nc : chars) {
    if (unicode::isWhitespace(nc.c)) {
      flush();
    } else if (isBertPunctuation(nc.c)) {
      flush();
      words.push_back({nc});
    } else {
      word.push_back(nc);
    }
  }
  flush();
  return words;
}

}  // namespace attnlab
