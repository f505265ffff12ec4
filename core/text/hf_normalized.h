#pragma once
// The text a tokenizer.json pipeline works on, as Hugging Face's NormalizedString keeps it: the current
// (normalized) characters, each aligned to the span of the ORIGINAL text's bytes it came from, so every
// token maps back to the user's text after normalizers and pre-tokenizers changed it. Also the
// patterns that split such a text (literal strings, regexes, character tests) and the split behaviours.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text/hf_regex.h"

namespace attnlab {

struct ByteSpan {
  int begin = 0, end = 0;  ///< [begin, end) in the original text's bytes
};

struct NormalizedText {
  std::u32string chars;
  std::vector<ByteSpan> align;  ///< one per character

  /// Bytes [begin, end) of `text` as code points (an invalid byte decodes to U+FFFD and keeps its span).
  static NormalizedText fromOriginal(std::string_view text, std::size_t begin, std::size_t end);
  NormalizedText slice(std::size_t begin, std::size_t end) const;
  /// Original span of characters [begin, end) (end > begin): first one's begin to last one's end.
  ByteSpan span(std::size_t begin, std::size_t end) const { return {align[begin].begin, align[end - 1].end}; }
  void prepend(const std::u32string& s);  ///< no-op on an empty text; new characters take the first's span
  void append(const std::u32string& s);   ///< no-op on an empty text; new characters take the last's span
};

/// A piece of a split: characters [begin, end) and whether it matched the pattern.
struct PatternMatch {
  std::size_t begin, end;
  bool isMatch;
};

/// A Split / Replace pattern of tokenizer.json: {"String": "…"} (literal) or {"Regex": "…"}.
class HfPattern {
 public:
  static HfPattern fromJson(const nlohmann::json& pattern, const std::string& where);
  static HfPattern ofChars(std::function<bool(char32_t)> test);  ///< every character passing `test` matches alone
  /// Matches and the gaps between them, covering `s` (one non-match piece for an empty pattern).
  std::vector<PatternMatch> find(const std::u32string& s) const;

 private:
  std::u32string literal_;
  std::shared_ptr<const HfRegex> regex_;
  std::function<bool(char32_t)> charTest_;
};

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

SplitBehavior splitBehaviorFromJson(const nlohmann::json& b, const std::string& where);

/// Splits `t` like NormalizedString::split: empty pieces are dropped.
std::vector<NormalizedText> splitText(const NormalizedText& t, const HfPattern& pattern, SplitBehavior behavior,
                                      bool invert = false);

/// Replaces every match of `pattern` by `content` (new characters take the last replaced character's span).
void replaceText(NormalizedText& t, const HfPattern& pattern, const std::u32string& content);

std::u32string toU32(std::string_view utf8);

}  // namespace attnlab
