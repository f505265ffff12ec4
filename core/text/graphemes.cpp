#include "core/text/graphemes.h"

#include <algorithm>

namespace attnlab::unicode {

GraphemeClass graphemeClass(char32_t c) {
  const std::uint32_t* end = data::kGraphemeRuns + data::kGraphemeRunsSize;
  // The last run starting at or before c.
  const std::uint32_t* it = std::upper_bound(data::kGraphemeRuns, end, static_cast<std::uint32_t>(c),
                                             [](std::uint32_t v, std::uint32_t run) { return v < (run >> 4); });
  return it == data::kGraphemeRuns ? GraphemeClass::Other : static_cast<GraphemeClass>(it[-1] & 0xF);
}

std::vector<std::size_t> graphemeEnds(const std::u32string& s) {
  using G = GraphemeClass;
  std::vector<std::size_t> ends;
  if (s.empty()) return ends;
  G prev = graphemeClass(s[0]);
  // GB11: the cluster so far is ExtPict Extend* (ZWJ just seen when prev is ZWJ); GB12/13: count of
  // regional indicators just before.
  bool pictSeq = prev == G::ExtendedPictographic;
  int riRun = prev == G::RegionalIndicator ? 1 : 0;
  for (std::size_t i = 1; i < s.size(); ++i) {
    const G cur = graphemeClass(s[i]);
    bool join;
    if (prev == G::CR && cur == G::LF)
      join = true;  // GB3
    else if (prev == G::Control || prev == G::CR || prev == G::LF || cur == G::Control || cur == G::CR || cur == G::LF)
      join = false;  // GB4, GB5
    else if (prev == G::L && (cur == G::L || cur == G::V || cur == G::LV || cur == G::LVT))
      join = true;  // GB6
    else if ((prev == G::LV || prev == G::V) && (cur == G::V || cur == G::T))
      join = true;  // GB7
    else if ((prev == G::LVT || prev == G::T) && cur == G::T)
      join = true;  // GB8
    else if (cur == G::Extend || cur == G::ZWJ || cur == G::SpacingMark || prev == G::Prepend)
      join = true;  // GB9, GB9a, GB9b
    else if (prev == G::ZWJ && cur == G::ExtendedPictographic && pictSeq)
      join = true;  // GB11
    else if (prev == G::RegionalIndicator && cur == G::RegionalIndicator && riRun % 2 == 1)
      join = true;  // GB12, GB13
    else
      join = false;  // GB999
    if (!join) ends.push_back(i);
    // The state after s[i]: a pictographic sequence continues through Extend and one final ZWJ.
    if (cur == G::ExtendedPictographic)
      pictSeq = true;
    else if (!(pictSeq && (cur == G::Extend || (cur == G::ZWJ && prev != G::ZWJ))))
      pictSeq = false;
    if (pictSeq && prev == G::ZWJ && cur != G::ExtendedPictographic) pictSeq = false;
    riRun = cur == G::RegionalIndicator ? riRun + 1 : 0;
    prev = cur;
  }
  ends.push_back(s.size());
  return ends;
}

}  // namespace attnlab::unicode
