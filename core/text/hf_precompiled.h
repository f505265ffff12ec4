#pragma once
// tokenizer.json's "Precompiled" normalizer (T5, ALBERT, XLNet, mBART…: SentencePiece's normalization
// rules, such as nmt_nfkc, compiled into the model). precompiled_charsmap is base64 of
//   uint32 (little-endian) trie size in bytes | Darts-clone double-array units (uint32 LE each) |
//   a pool of NUL-terminated replacement strings,
// the trie mapping a byte string to the pool offset of its replacement. As in Hugging Face, the text is
// replaced extended grapheme cluster by cluster: a cluster under 6 bytes is looked up whole (its FIRST,
// i.e. shortest, prefix match replaces the whole cluster), otherwise, or without a match, character by
// character; alignments follow NormalizedString::transform.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/hf_normalized.h"

namespace attnlab {

class PrecompiledCharsmap {
 public:
  /// `base64` as in the file; throws InputError naming `where` for bad base64, a truncated trie or a
  /// pool that is not UTF-8. An empty string maps nothing.
  static PrecompiledCharsmap fromBase64(const std::string& base64, const std::string& where);
  /// The replacement of `chunk` (its first prefix match), or nothing.
  std::optional<std::string_view> transform(std::string_view chunk) const;
  void normalize(NormalizedText& t) const;

 private:
  std::vector<std::uint32_t> units_;
  std::string pool_;
};

/// Standard base64 (padding optional, no line breaks); throws InputError naming `where`.
std::string decodeBase64(const std::string& s, const std::string& where);

}  // namespace attnlab
