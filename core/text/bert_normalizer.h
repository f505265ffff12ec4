#pragma once
// BERT's text preparation before WordPiece, as Hugging Face's BertNormalizer + BertPreTokenizer do it,
// in this order: clean (drop NUL, U+FFFD and control/format characters, whitespace → space), space out
// CJK ideographs, strip accents (NFD, drop Mn), lower-case; then split on whitespace and make every
// punctuation character a word of its own. Each character remembers the source bytes it came from, so
// word pieces can point back into the typed text.
#include <string_view>
#include <vector>

namespace attnlab {

struct BertNormalizerOptions {
  bool cleanText = true;
  bool handleChineseChars = true;
  bool stripAccents = true;  ///< BERT's default follows lowercase
  bool lowercase = true;
};

struct NormChar {
  char32_t c;
  std::size_t srcBegin, srcEnd;  ///< bytes of the source character it came from
};

/// The words of `text` after normalisation and pre-tokenization; byte offsets are relative to `text`
/// plus `base`.
std::vector<std::vector<NormChar>> bertWords(std::string_view text, std::size_t base,
                                             const BertNormalizerOptions& options);

/// BERT's punctuation: ASCII punctuation (which includes $, +, <, =, >, ^, `, |, ~) or category P*.
bool isBertPunctuation(char32_t c);

}  // namespace attnlab
