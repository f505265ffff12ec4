#include "core/text/hf_normalized.h"

#include "core/base/errors.h"
#include "core/text/utf8.h"

namespace attnlab {

std::u32string toU32(std::string_view s) {
  std::u32string out;
  for (std::size_t pos = 0; pos < s.size();) {
    const utf8::CodePoint c = utf8::decode(s, pos);
    out += c.value;
    pos += c.size;
  }
  return out;
}

NormalizedText NormalizedText::fromOriginal(std::string_view text, std::size_t begin, std::size_t end) {
  NormalizedText t;
  for (std::size_t pos = begin; pos < end;) {
    const utf8::CodePoint c = utf8::decode(text.substr(0, end), pos);
    t.chars += c.value;
    t.align.push_back({static_cast<int>(pos), static_cast<int>(pos + c.size)});
    pos += c.size;
  }
  return t;
}

NormalizedText NormalizedText::slice(std::size_t begin, std::size_t end) const {
  NormalizedText t;
  t.chars = chars.substr(begin, end - begin);
  t.align.assign(align.begin() + static_cast<long>(begin), align.begin() + static_cast<long>(end));
  return t;
}

void NormalizedText::prepend(const std::u32string& s) {
  if (chars.empty()) return;
  chars.insert(0, s);
  align.insert(align.begin(), s.size(), align.front());
}

void NormalizedText::append(const std::u32string& s) {
  if (chars.empty()) return;
  chars += s;
  align.insert(align.end(), s.size(), align.back());
}

HfPattern HfPattern::fromJson(const nlohmann::json& pattern, const std::string& where) {
  HfPattern p;
  if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
    p.literal_ = toU32(pattern["String"].get<std::string>());
  } else if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()) {
    p.regex_ = std::make_shared<const HfRegex>(pattern["Regex"].get<std::string>(), where);
  } else {
    throw InputError(where + ": pattern must be {\"String\": …} or {\"Regex\": …}");
  }
  return p;
}

HfPattern HfPattern::ofChars(std::function<bool(char32_t)> test) {
  HfPattern p;
  p.charTest_ = std::move(test);
  return p;
}

std::vector<PatternMatch> HfPattern::find(const std::u32string& s) const {
  std::vector<PatternMatch> out;
  if (s.empty()) return {{0, 0, false}};
  std::size_t prev = 0;
  auto add = [&](std::size_t b, std::size_t e) {
    if (b > prev) out.push_back({prev, b, false});
    out.push_back({b, e, true});
    prev = e;
  };
  if (charTest_) {
    for (std::size_t i = 0; i < s.size(); ++i)
      if (charTest_(s[i])) add(i, i + 1);
  } else if (regex_) {
    for (const auto& [b, e] : regex_->findAll(s)) add(b, e);
  } else if (!literal_.empty()) {
    for (std::size_t at = s.find(literal_); at != std::u32string::npos; at = s.find(literal_, prev))
      add(at, at + literal_.size());
  }
  if (prev < s.size()) out.push_back({prev, s.size(), false});
  return out;
}

SplitBehavior splitBehaviorFromJson(const nlohmann::json& b, const std::string& where) {
  const std::string s = b.is_string() ? b.get<std::string>() : std::string();
  if (s == "Removed") return SplitBehavior::Removed;
  if (s == "Isolated") return SplitBehavior::Isolated;
  if (s == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (s == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (s == "Contiguous") return SplitBehavior::Contiguous;
  throw InputError(where + ": split behavior \"" + s + "\" is not supported");
}

namespace {

/// The pieces to keep (or remove), as NormalizedString::split folds the matches for each behaviour.
std::vector<PatternMatch> applyBehavior(const std::vector<PatternMatch>& matches, SplitBehavior behavior) {
  std::vector<PatternMatch> out;  // isMatch now means "remove"
  bool previous = false;
  switch (behavior) {
    case SplitBehavior::Isolated:
      for (PatternMatch m : matches) out.push_back({m.begin, m.end, false});
      return out;
    case SplitBehavior::Removed:
      return matches;
    case SplitBehavior::Contiguous:
      for (const PatternMatch& m : matches) {
        if (m.isMatch == previous && !out.empty())
          out.back().end = m.end;
        else
          out.push_back({m.begin, m.end, false});
        previous = m.isMatch;
      }
      return out;
    case SplitBehavior::MergedWithPrevious:
      for (const PatternMatch& m : matches) {
        if (m.isMatch && !previous && !out.empty())
          out.back().end = m.end;
        else
          out.push_back({m.begin, m.end, false});
        previous = m.isMatch;
      }
      return out;
    case SplitBehavior::MergedWithNext:
      for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
        if (it->isMatch && !previous && !out.empty())
          out.back().begin = it->begin;
        else
          out.push_back({it->begin, it->end, false});
        previous = it->isMatch;
      }
      return {out.rbegin(), out.rend()};
  }
  return out;
}

}  // namespace

std::vector<NormalizedText> splitText(const NormalizedText& t, const HfPattern& pattern, SplitBehavior behavior,
                                      bool invert) {
  std::vector<PatternMatch> matches = pattern.find(t.chars);
  if (invert)
    for (PatternMatch& m : matches) m.isMatch = !m.isMatch;
  std::vector<NormalizedText> out;
  for (const PatternMatch& m : applyBehavior(matches, behavior))
    if (!m.isMatch && m.end > m.begin) out.push_back(t.slice(m.begin, m.end));
  return out;
}

void replaceText(NormalizedText& t, const HfPattern& pattern, const std::u32string& content) {
  NormalizedText out;
  for (const PatternMatch& m : pattern.find(t.chars)) {
    if (m.end == m.begin) continue;
    if (!m.isMatch) {
      out.chars.append(t.chars, m.begin, m.end - m.begin);
      out.align.insert(out.align.end(), t.align.begin() + static_cast<long>(m.begin),
                       t.align.begin() + static_cast<long>(m.end));
      continue;
    }
    out.chars += content;
    out.align.insert(out.align.end(), content.size(), t.align[m.end - 1]);
  }
  t = std::move(out);
}

}  // namespace attnlab
