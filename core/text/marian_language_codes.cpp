#include "core/text/marian_language_codes.h"

#include <algorithm>

namespace attnlab {

std::vector<std::pair<std::size_t, std::size_t>> marianLanguageCodes(std::string_view text, std::size_t begin,
                                                                     std::size_t end) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  end = std::min(end, text.size());
  // Line by line: a match starts at the line's first ">>" and runs to its last "<<" (greedy '.+'); after it, no
  // ">>" of the line can reach a later "<<". A first ">>" too close to the last "<<" (or after it) means no later
  // ">>" of the line can match either. So each line has at most one match and is looked at a bounded number of times.
  for (std::size_t lineBegin = begin; lineBegin < end;) {
    std::size_t lineEnd = text.find('\n', lineBegin);
    lineEnd = lineEnd == std::string_view::npos ? end : std::min(lineEnd, end);
    const std::string_view line = text.substr(lineBegin, lineEnd - lineBegin);
    const std::size_t open = line.find(">>");
    const std::size_t close = line.size() >= 2 ? line.rfind("<<") : std::string_view::npos;
    if (open != std::string_view::npos && close != std::string_view::npos && close >= open + 3)
      out.emplace_back(lineBegin + open, lineBegin + close + 2);
    lineBegin = lineEnd + 1;
  }
  return out;
}

}  // namespace attnlab
