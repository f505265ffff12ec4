#pragma once
// GPT-2's pre-tokenizer, the regular expression of OpenAI's encoder.py (also Hugging Face's ByteLevel
// pre-tokenizer), implemented by hand over code points:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// Alternatives are tried in that order at each position. \s is White_Space; invalid UTF-8 bytes count
// as one "other" character each (the byte-level BPE then encodes their raw bytes).
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab {

/// Byte ranges [begin, end) of the pieces, covering `text` exactly, in order.
std::vector<std::pair<std::size_t, std::size_t>> gpt2PreTokenize(std::string_view text);

}  // namespace attnlab
