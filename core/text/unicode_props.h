#pragma once
// The Unicode properties the checkpoint tokenizers need, exact for Unicode 14 (tables generated from
// Python's unicodedata by tools/gen_unicode_data.py):
//  - GPT-2's pre-tokenizer regex uses \p{L}, \p{N} and \s (White_Space);
//  - BERT's normalizer drops "other" characters (categories C*), strips accents (NFD, then drop Mn),
//    lower-cases, and splits on punctuation (categories P*) and CJK ideographs.
#include <string>

namespace attnlab::unicode {

bool isLetter(char32_t c);          ///< general category L*
bool isNumber(char32_t c);          ///< general category N*
bool isPunctuation(char32_t c);     ///< general category P*
bool isNonspacingMark(char32_t c);  ///< general category Mn
bool isOther(char32_t c);           ///< general category C* (Cc, Cf, Cn, Co, Cs)
bool isWhitespace(char32_t c);      ///< the White_Space property (Rust's char::is_whitespace, regex \s)

/// The CJK ideograph blocks BERT pads with spaces (BasicTokenizer._is_chinese_char): not kana or hangul.
bool isCjkIdeograph(char32_t c);

/// Appends the full lower-case mapping of `c` (one code point, or two for U+0130) to `out`.
void appendLower(std::u32string& out, char32_t c);

/// Appends NFD(c) without its non-spacing marks (BERT's accent stripping); appends nothing for a mark.
void appendStripped(std::u32string& out, char32_t c);

}  // namespace attnlab::unicode
