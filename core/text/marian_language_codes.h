#pragma once
// Marian's language codes (">>fra<<" at the start of a source text picks the target language): MarianTokenizer cuts
// them out with Python's re ">>.+<<" (greedy, '.' not matching a line break) before SentencePiece runs.
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab {

/// The matches of ">>.+<<" over [begin, end) of `text`, leftmost first, each from the first ">>" to the LAST "<<" of
/// its line with at least one character between. Linear in end − begin: each line's last "<<" is found once (a line
/// of ">>" without "<<" was one scan of the rest of the line per byte).
std::vector<std::pair<std::size_t, std::size_t>> marianLanguageCodes(std::string_view text, std::size_t begin,
                                                                     std::size_t end);

}  // namespace attnlab
