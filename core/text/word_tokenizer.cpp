#include "core/text/word_tokenizer.h"

#include "core/text/utf8.h"

namespace attnlab {
namespace {

enum class CharClass { Space, Word, Joiner, Single };

bool inRange(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

bool isCjk(char32_t c) {
  return inRange(c, 0x4E00, 0x9FFF) || inRange(c, 0x3400, 0x4DBF) || inRange(c, 0x20000, 0x2A6DF) ||
         inRange(c, 0x2A700, 0x2EBEF) || inRange(c, 0xF900, 0xFAFF) || inRange(c, 0x2F800, 0x2FA1F) ||
         inRange(c, 0x3040, 0x30FF) ||  // hiragana, katakana
         inRange(c, 0xAC00, 0xD7AF);    // hangul syllables
}

bool isSpace(char32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || inRange(c, 0x2000, 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool isInvisible(char32_t c) {
  // Zero-width and control characters carry no token of their own; ZWJ joins emoji sequences. A line break or a tab
  // is white space: "street\na" of a page's two lines read as one word "streeta" (issue 31).
  return (c < 0x20 && !isSpace(c)) || c == 0x7F || inRange(c, 0x200B, 0x200F) || c == 0xFEFF ||
         inRange(c, 0xFE00, 0xFE0F);
}

bool isAsciiPunct(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

bool isSymbolOrPunct(char32_t c) {
  return isAsciiPunct(c) || inRange(c, 0xA1, 0xBF) || c == 0xD7 || c == 0xF7 || inRange(c, 0x2010, 0x2BFF) ||
         inRange(c, 0x3000, 0x303F) || inRange(c, 0xFF00, 0xFF0F) || inRange(c, 0xFF1A, 0xFF20) ||
         inRange(c, 0x1F000, 0x1FAFF) || c == 0xFFFD;
}

CharClass classify(char32_t c) {
  if (isSpace(c)) return CharClass::Space;
  if (c == '\'' || c == 0x2019 || c == '-') return CharClass::Joiner;
  if (isCjk(c) || isSymbolOrPunct(c)) return CharClass::Single;
  return CharClass::Word;  // letters, digits, combining marks and every script we do not special-case
}

}  // namespace

char32_t toLowerSimple(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  // Latin Extended-A pairs upper/lower case as (even, odd) or, in two stretches, (odd, even).
  if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c % 2 == 0) ? c + 1 : c;
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
  if (c == 0x178) return 0xFF;
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;  // Greek
  if (c >= 0x410 && c <= 0x42F) return c + 32;                // Cyrillic
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

std::vector<Token> tokenizeWords(std::string_view s, const WordTokenizerOptions& options) {
  std::vector<Token> tokens;
  Token current;
  bool inWord = false;
  int u16 = 0;
  Token pending;  // an apostrophe or hyphen after a word, kept in it only if a word character follows

  auto flushWord = [&]() {
    if (inWord) tokens.push_back(current);
    inWord = false;
    current = Token{};
  };
  auto emitSingle = [&](std::string text, int b0, int b1, int u0, int u1) {
    tokens.push_back(Token{std::move(text), b0, b1, u0, u1});
  };

  for (std::size_t pos = 0; pos < s.size();) {
    const utf8::CodePoint cp = utf8::decode(s, pos);
    const int b0 = static_cast<int>(pos), b1 = static_cast<int>(pos + cp.size);
    const int units = utf8::utf16Units(cp.value);
    std::string text;
    utf8::append(text, options.lowercase ? toLowerSimple(cp.value) : cp.value);
    pos += cp.size;

    if (isInvisible(cp.value)) {
      u16 += units;
      continue;
    }
    const CharClass cls = classify(cp.value);
    if (!pending.text.empty() && cls != CharClass::Word) {
      // The joiner did not sit between two word characters: it is punctuation of its own.
      flushWord();
      tokens.push_back(std::move(pending));
      pending = Token{};
    }
    switch (cls) {
      case CharClass::Space:
        flushWord();
        break;
      case CharClass::Joiner:
        if (inWord) {
          pending = Token{text, b0, b1, u16, u16 + units};
        } else {
          emitSingle(text, b0, b1, u16, u16 + units);
        }
        break;
      case CharClass::Single:
        flushWord();
        emitSingle(text, b0, b1, u16, u16 + units);
        break;
      case CharClass::Word:
        if (!inWord) {
          current = Token{"", b0, b0, u16, u16};
          inWord = true;
        }
        if (!pending.text.empty()) {
          current.text += pending.text;
          pending = Token{};
        }
        current.text += text;
        current.byteEnd = b1;
        current.u16End = u16 + units;
        break;
    }
    u16 += units;
  }
  flushWord();
  if (!pending.text.empty()) tokens.push_back(std::move(pending));
  return tokens;
}

}  // namespace attnlab
