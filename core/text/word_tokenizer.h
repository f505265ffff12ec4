#pragma once
// Word-level tokenizer for typed sentences (the built-in model's tokenizer).
// Words are runs of letters, digits, marks and apostrophes/hyphens inside words; every punctuation
// mark, symbol and emoji is its own token; every CJK ideograph / kana / hangul syllable is its own
// token, so a Chinese sentence tokenizes as usefully as an English one.
// Token and TokenizedText are what every tokenizer of the program returns (the checkpoint tokenizers
// of tokenizer.h too), so they live here, below the models.
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

struct Token {
  std::string text;                ///< UTF-8, lower-cased when asked
  int byteBegin = 0, byteEnd = 0;  ///< [begin, end) in the input's bytes
  int u16Begin = 0, u16End = 0;    ///< the same span in UTF-16 code units (for Qt text highlighting)
};

/// A text cut into the model's tokens, with character offsets for highlighting.
struct TokenizedText {
  std::vector<Token> tokens;  ///< display text + offsets; special tokens have empty spans
  std::vector<int> ids;       ///< vocabulary ids; empty for models without a vocabulary
};

struct WordTokenizerOptions {
  bool lowercase = true;
};

std::vector<Token> tokenizeWords(std::string_view utf8, const WordTokenizerOptions& options = {});

/// Simple case folding for Latin, Latin-1, Latin Extended-A, Greek and Cyrillic; others unchanged.
char32_t toLowerSimple(char32_t cp);

}  // namespace attnlab
