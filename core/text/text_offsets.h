#pragma once
// Byte offsets → UTF-16 offsets for a UTF-8 text, so a token's span can highlight its characters in a
// Qt string. Byte-level BPE tokens may cover part of a character (a CJK character is often split in
// two pieces): their UTF-16 span is widened to whole characters, their byte span stays exact.
#include <string_view>
#include <vector>

#include "core/text/word_tokenizer.h"

namespace attnlab {

class Utf16Offsets {
 public:
  explicit Utf16Offsets(std::string_view utf8);
  /// UTF-16 index of the character containing byte `b` (the text's length in UTF-16 for b = size).
  int begin(std::size_t b) const { return start_[b]; }
  /// UTF-16 index just after the character containing byte `e − 1` (= begin(e) when e is 0 or a boundary).
  int end(std::size_t e) const { return e == 0 ? 0 : end_[e - 1]; }

  /// A token for bytes [b, e) of the text.
  Token token(std::string text, std::size_t b, std::size_t e) const;

 private:
  std::vector<int> start_, end_;  ///< per byte, plus one entry for the end of the text in start_
};

}  // namespace attnlab
