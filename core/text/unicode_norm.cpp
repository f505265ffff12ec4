#include "core/text/unicode_norm.h"

#include <algorithm>

#include "core/text/unicode_norm_data.h"

namespace attnlab::unicode {
namespace {

using namespace norm;

// Hangul syllables (de)compose arithmetically (Unicode §3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

std::uint32_t runValue(const std::uint32_t* runs, std::size_t size, char32_t c, int shift) {
  if (c > 0x10FFFF) return 0;
  const std::uint32_t key = (static_cast<std::uint32_t>(c) << shift) | ((1u << shift) - 1);
  const std::uint32_t* it = std::upper_bound(runs, runs + size, key);
  return *(it - 1) & ((1u << shift) - 1);
}

void decompose(char32_t c, bool compat, std::u32string& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const int s = static_cast<int>(c - kSBase);
    out += kLBase + s / kNCount;
    out += kVBase + (s % kNCount) / kTCount;
    if (s % kTCount != 0) out += kTBase + s % kTCount;
    return;
  }
  const Decomposition* table = compat ? kNfkd : kNfd;
  const Decomposition* end = table + (compat ? kNfkdSize : kNfdSize);
  const Decomposition* it =
      std::lower_bound(table, end, c, [](const Decomposition& d, char32_t v) { return d.cp < v; });
  if (it == end || it->cp != c) {
    out += c;
    return;
  }
  out.append(kDecompChars + it->first, it->count);
}

/// The primary composite of a + b, or 0.
char32_t compose(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  const Composition* end = kCompose + kComposeSize;
  const Composition* it = std::lower_bound(kCompose, end, std::make_pair(a, b), [](const Composition& e, auto v) {
    return e.first != v.first ? e.first < v.first : e.second < v.second;
  });
  return it != end && it->first == a && it->second == b ? it->composite : 0;
}

/// Canonical ordering: runs of non-starters sorted stably by combining class (origins move along).
void reorder(std::u32string& s, std::vector<int>& origin) {
  for (std::size_t i = 1; i < s.size(); ++i) {
    const int cc = combiningClass(s[i]);
    if (cc == 0) continue;
    for (std::size_t j = i; j > 0; --j) {
      const int prev = combiningClass(s[j - 1]);
      if (prev == 0 || prev <= cc) break;
      std::swap(s[j], s[j - 1]);
      std::swap(origin[j], origin[j - 1]);
    }
  }
}

/// Canonical composition: each character joins the last starter unless blocked by a character between
/// them of class 0 or of a class ≥ its own.
void recompose(std::u32string& s, std::vector<int>& origin) {
  std::u32string out;
  std::vector<int> outOrigin;
  int starter = -1, lastCcc = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int cc = combiningClass(s[i]);
    if (starter >= 0) {
      const bool adjacent = static_cast<int>(out.size()) - 1 == starter;
      if (adjacent || (lastCcc != 0 && lastCcc < cc)) {
        if (const char32_t c = compose(out[starter], s[i])) {
          out[starter] = c;
          continue;
        }
      }
    }
    if (cc == 0) starter = static_cast<int>(out.size());
    lastCcc = cc;
    out += s[i];
    outOrigin.push_back(origin[i]);
  }
  s = std::move(out);
  origin = std::move(outOrigin);
}

}  // namespace

Category category(char32_t c) {
  if (c > 0x10FFFF) return Category::Cn;
  return static_cast<Category>(runValue(kCategoryRuns, kCategoryRunsSize, c, 5));
}

int combiningClass(char32_t c) {
  if (c < 0x300) return 0;  // fast path: nothing below U+0300 combines
  return static_cast<int>(runValue(kCccRuns, kCccRunsSize, c, 8));
}

void normalize(const std::u32string& in, NormalForm form, std::u32string& out, std::vector<int>& origin) {
  const bool compat = form == NormalForm::NFKC || form == NormalForm::NFKD;
  out.clear();
  origin.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::size_t before = out.size();
    decompose(in[i], compat, out);
    origin.insert(origin.end(), out.size() - before, static_cast<int>(i));
  }
  reorder(out, origin);
  if (form == NormalForm::NFC || form == NormalForm::NFKC) recompose(out, origin);
}

}  // namespace attnlab::unicode
