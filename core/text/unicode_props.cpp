#include "core/text/unicode_props.h"

#include <algorithm>

#include "core/text/unicode_data.h"

namespace attnlab::unicode {
namespace {

using namespace data;

ClassCode classOf(char32_t c) {
  if (c > 0x10FFFF) return kOther;
  // The last run starting at or before c: runs are sorted by start (bits 3…).
  const std::uint32_t key = (static_cast<std::uint32_t>(c) << 3) | 7u;
  const std::uint32_t* end = kClassRuns + kClassRunsSize;
  const std::uint32_t* it = std::upper_bound(kClassRuns, end, key);
  return static_cast<ClassCode>(*(it - 1) & 7u);
}

// Hangul syllables decompose arithmetically (Unicode §3.12) into leading consonant, vowel and an
// optional trailing consonant; none of the jamo is a mark, so stripping keeps all of them.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kVCount = 21, kTCount = 28, kSCount = 11172;

}  // namespace

bool isLetter(char32_t c) { return classOf(c) == kLetter; }
bool isNumber(char32_t c) { return classOf(c) == kNumber; }
bool isPunctuation(char32_t c) { return classOf(c) == kPunct; }
bool isNonspacingMark(char32_t c) { return classOf(c) == kMark; }
bool isOther(char32_t c) { return classOf(c) == kOther; }

bool isWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool isCjkIdeograph(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

void appendLower(std::u32string& out, char32_t c) {
  if (c == 0x130) {  // İ → i + combining dot above (SpecialCasing, unconditional)
    out += U'i';
    out += char32_t(0x307);
    return;
  }
  const LowerRun* end = kLowerRuns + kLowerRunsSize;
  const LowerRun* it = std::upper_bound(kLowerRuns, end, c, [](char32_t v, const LowerRun& r) { return v < r.first; });
  if (it != kLowerRuns) {
    const LowerRun& r = *(it - 1);
    if (c <= r.last && (c - r.first) % static_cast<char32_t>(r.stride) == 0) {
      out += static_cast<char32_t>(static_cast<std::int64_t>(c) + r.delta);
      return;
    }
  }
  out += c;
}

void appendStripped(std::u32string& out, char32_t c) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const int s = static_cast<int>(c - kSBase);
    out += kLBase + s / (kVCount * kTCount);
    out += kVBase + (s % (kVCount * kTCount)) / kTCount;
    if (s % kTCount != 0) out += kTBase + s % kTCount;
    return;
  }
  if (isNonspacingMark(c)) return;
  auto less1 = [](const StripOne& e, char32_t v) { return e.from < v; };
  const StripOne* e1 = std::lower_bound(kStrip1, kStrip1 + kStrip1Size, c, less1);
  if (e1 != kStrip1 + kStrip1Size && e1->from == c) {
    out += e1->to;
    return;
  }
  auto less3 = [](const StripThree& e, char32_t v) { return e.from < v; };
  const StripThree* e3 = std::lower_bound(kStrip3, kStrip3 + kStrip3Size, c, less3);
  if (e3 != kStrip3 + kStrip3Size && e3->from == c) {
    for (char32_t t : e3->to)
      if (t != 0) out += t;
    return;
  }
  out += c;
}

}  // namespace attnlab::unicode
