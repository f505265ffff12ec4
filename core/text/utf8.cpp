#include "core/text/utf8.h"

namespace attnlab::utf8 {

CodePoint decode(std::string_view s, std::size_t pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b0 = byte(pos);
  if (b0 < 0x80) return {b0, 1, true};
  int len = 0;
  char32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return {0xFFFD, 1, false};
  }
  if (pos + len > s.size()) return {0xFFFD, 1, false};
  for (int i = 1; i < len; ++i) {
    const unsigned char b = byte(pos + i);
    if ((b & 0xC0) != 0x80) return {0xFFFD, 1, false};
    cp = (cp << 6) | (b & 0x3F);
  }
  // Reject overlong forms, surrogates and values beyond U+10FFFF.
  static const char32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0xFFFD, 1, false};
  return {cp, static_cast<std::size_t>(len), true};
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool isValid(std::string_view s) {
  for (std::size_t pos = 0; pos < s.size();) {
    const CodePoint cp = decode(s, pos);
    if (!cp.valid) return false;
    pos += cp.size;
  }
  return true;
}

std::string lossy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  for (std::size_t i = 0; i < s.size();) {
    const CodePoint cp = decode(s, i);
    if (cp.valid) {
      out.append(s.substr(i, cp.size));
      i += cp.size;
      continue;
    }
    // The maximal subpart: a lead byte and the continuation bytes that could still have made a character (the second
    // byte's range depends on the lead: E0 A0–BF, ED 80–9F, F0 90–BF, F4 80–8F), ended by the first that cannot.
    const unsigned char b0 = at(i);
    int need = b0 >= 0xC2 && b0 <= 0xDF ? 1 : b0 >= 0xE0 && b0 <= 0xEF ? 2 : b0 >= 0xF0 && b0 <= 0xF4 ? 3 : 0;
    std::size_t end = i + 1;
    for (int k = 0; k < need && end < s.size(); ++k, ++end) {
      const unsigned char b = at(end);
      unsigned char lo = 0x80, hi = 0xBF;
      if (k == 0) {
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
      }
      if (b < lo || b > hi) break;
    }
    append(out, 0xFFFD);
    i = end;
  }
  return out;
}

}  // namespace attnlab::utf8
