#include "core/text/hf_precompiled.h"

#include "core/base/errors.h"
#include "core/text/graphemes.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

std::uint32_t readLe32(const std::string& b, std::size_t pos) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[pos])) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[pos + 1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[pos + 2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[pos + 3])) << 24;
}

bool validUtf8(const std::string& s) {
  for (std::size_t pos = 0; pos < s.size();) {
    const utf8::CodePoint c = utf8::decode(s, pos);
    if (c.value == 0xFFFD && !(c.size == 3 && s.compare(pos, 3, "\xEF\xBF\xBD") == 0)) return false;
    pos += c.size;
  }
  return true;
}

// Darts-clone's unit fields.
bool hasLeaf(std::uint32_t u) { return (u >> 8) & 1; }
std::uint32_t value(std::uint32_t u) { return u & 0x7FFFFFFFu; }
std::uint32_t label(std::uint32_t u) { return u & 0x800000FFu; }
std::uint32_t offset(std::uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

/// One character of the new text and how it relates to the old (NormalizedString::transform's changes).
struct Change {
  char32_t c;
  int change;
};

/// Hugging Face's `replace` of the Precompiled normalizer: the new characters replace the old ones one
/// for one; extra new ones are insertions (+1); with fewer, the LAST change so far (possibly an earlier
/// cluster's, or none at all at the text's start) absorbs the removed count.
void replace(std::vector<Change>& out, std::size_t oldCount, std::string_view replacement) {
  const std::u32string rep = toU32(replacement);
  const long diff = static_cast<long>(rep.size()) - static_cast<long>(oldCount);
  for (char32_t c : rep) out.push_back({c, 0});
  if (diff > 0)
    for (long k = 0; k < diff; ++k) out[out.size() - 1 - static_cast<std::size_t>(k)].change = 1;
  else if (diff < 0 && !out.empty())
    out.back().change += static_cast<int>(diff);
}

/// NormalizedString::transform over the whole text: a character with change ≤ 0 takes the span of the
/// next old character and consumes it plus −change more; an inserted one (+1) takes the span of the
/// character before.
void transformText(NormalizedText& t, const std::vector<Change>& dest) {
  NormalizedText out;
  std::size_t pos = 0;  // old characters consumed
  const ByteSpan start{t.align.empty() ? 0 : t.align[0].begin, t.align.empty() ? 0 : t.align[0].begin};
  for (const Change& d : dest) {
    ByteSpan span;
    if (d.change > 0) {
      span = pos == 0 ? start : t.align[std::min(pos, t.align.size()) - 1];
    } else {
      span = pos < t.align.size() ? t.align[pos] : (t.align.empty() ? start : t.align.back());
      pos += 1 + static_cast<std::size_t>(-d.change);
    }
    out.chars += d.c;
    out.align.push_back(span);
  }
  t = std::move(out);
}

}  // namespace

std::string decodeBase64(const std::string& s, const std::string& where) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  std::size_t end = s.size();
  while (end > 0 && s[end - 1] == '=') --end;
  for (std::size_t i = 0; i < end; ++i) {
    const char c = s[i];
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else
      throw InputError(where + ": not base64 (character " + std::to_string(i) + ")");
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

PrecompiledCharsmap PrecompiledCharsmap::fromBase64(const std::string& base64, const std::string& where) {
  PrecompiledCharsmap m;
  const std::string b = decodeBase64(base64, where);
  if (b.empty()) return m;
  if (b.size() < 4)
    throw InputError(where + ": precompiled_charsmap is too short (" + std::to_string(b.size()) + " bytes)");
  const std::uint32_t trieBytes = readLe32(b, 0);
  if (trieBytes % 4 != 0 || trieBytes > b.size() - 4)
    throw InputError(where + ": precompiled_charsmap is truncated (its trie needs " + std::to_string(trieBytes) +
                     " bytes, " + std::to_string(b.size() - 4) + " follow)");
  for (std::size_t pos = 4; pos < 4 + trieBytes; pos += 4) m.units_.push_back(readLe32(b, pos));
  m.pool_ = b.substr(4 + trieBytes);
  if (!validUtf8(m.pool_)) throw InputError(where + ": precompiled_charsmap's strings are not UTF-8");
  return m;
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view chunk) const {
  if (units_.empty()) return std::nullopt;
  std::size_t node = offset(units_[0]);
  for (char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    node ^= c;
    if (node >= units_.size()) return std::nullopt;
    const std::uint32_t unit = units_[node];
    if (label(unit) != c) return std::nullopt;
    node ^= offset(unit);
    if (node >= units_.size()) return std::nullopt;
    if (hasLeaf(unit)) {
      const std::size_t at = value(units_[node]);
      if (at >= pool_.size()) return std::nullopt;
      const std::size_t nul = pool_.find('\0', at);
      return std::string_view(pool_).substr(at, (nul == std::string::npos ? pool_.size() : nul) - at);
    }
  }
  return std::nullopt;
}

void PrecompiledCharsmap::normalize(NormalizedText& t) const {
  if (units_.empty() || t.chars.empty()) return;
  std::vector<Change> dest;
  dest.reserve(t.chars.size());
  bool modified = false;
  std::size_t begin = 0;
  for (const std::size_t end : unicode::graphemeEnds(t.chars)) {
    std::string cluster;
    for (std::size_t k = begin; k < end; ++k) utf8::append(cluster, t.chars[k]);
    std::optional<std::string_view> whole;
    if (cluster.size() < 6) whole = transform(cluster);
    if (whole) {
      modified = true;
      replace(dest, end - begin, *whole);
    } else {
      for (std::size_t k = begin; k < end; ++k) {
        std::string one;
        utf8::append(one, t.chars[k]);
        if (const auto rep = transform(one)) {
          modified = true;
          replace(dest, 1, *rep);
        } else {
          dest.push_back({t.chars[k], 0});
        }
      }
    }
    begin = end;
  }
  if (modified) transformText(t, dest);
}

}  // namespace attnlab
