#pragma once
// Minimal UTF-8 decoding for tokenizers: invalid bytes never throw, they decode to U+FFFD one byte
// at a time, so any byte string (emoji, truncated sequences, binary junk) can be tokenized.
#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab::utf8 {

struct CodePoint {
  char32_t value;    ///< U+FFFD for an invalid sequence
  std::size_t size;  ///< bytes consumed, ≥ 1
  bool valid;
};

/// Decodes the code point starting at byte `pos` of `s` (pos < s.size()).
CodePoint decode(std::string_view s, std::size_t pos);

/// Appends the UTF-8 encoding of `cp` to `out`.
void append(std::string& out, char32_t cp);

/// Number of UTF-16 code units for `cp` (1 or 2): Qt strings index in UTF-16.
inline int utf16Units(char32_t cp) { return cp >= 0x10000 ? 2 : 1; }

/// True when every byte sequence in `s` is well-formed UTF-8.
bool isValid(std::string_view s);

/// `s` with each ill-formed part replaced by one U+FFFD per maximal subpart (Unicode's recommended practice, which
/// Python's bytes.decode("utf-8", errors="replace") and so Hugging Face's decode follow): a character cut off at the
/// end ("cat" F0 9F) gives one U+FFFD, a lone continuation byte or a byte that cannot start a character one each.
std::string lossy(std::string_view s);

}  // namespace attnlab::utf8
