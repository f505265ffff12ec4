#include "core/text/token_display.h"

#include <unordered_map>

#include "core/text/bpe_tokenizer.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

/// Byte value of each byte-level stand-in character.
const std::unordered_map<char32_t, unsigned char>& standInBytes() {
  static const std::unordered_map<char32_t, unsigned char> table = [] {
    std::unordered_map<char32_t, unsigned char> t;
    const std::vector<std::string>& s = byteStandIns();
    for (int b = 0; b < 256; ++b) t[utf8::decode(s[b], 0).value] = static_cast<unsigned char>(b);
    return t;
  }();
  return table;
}

/// Bytes → UTF-8 with each invalid byte replaced by U+FFFD.
std::string sanitize(const std::string& bytes) {
  std::string out;
  for (std::size_t pos = 0; pos < bytes.size();) {
    const utf8::CodePoint c = utf8::decode(bytes, pos);
    utf8::append(out, c.value);
    pos += c.size;
  }
  return out;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool byteFallback(const std::string& piece, std::string& out) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return false;
  const int hi = hexDigit(piece[3]), lo = hexDigit(piece[4]);
  if (hi < 0 || lo < 0) return false;
  out = std::string(1, static_cast<char>(hi * 16 + lo));
  return true;
}

bool byteLevel(const std::string& piece, std::string& out) {
  std::string bytes;
  for (std::size_t pos = 0; pos < piece.size();) {
    const utf8::CodePoint c = utf8::decode(piece, pos);
    const auto it = standInBytes().find(c.value);
    if (!c.valid || it == standInBytes().end()) return false;
    bytes += static_cast<char>(it->second);
    pos += c.size;
  }
  out = bytes;
  return true;
}

std::string metaspace(const std::string& piece) {
  std::string out;
  const std::string marker = "\xE2\x96\x81";  // ▁
  for (std::size_t pos = 0; pos < piece.size();) {
    if (piece.compare(pos, marker.size(), marker) == 0) {
      out += ' ';
      pos += marker.size();
    } else {
      out += piece[pos++];
    }
  }
  return out;
}

}  // namespace

std::string tokenBytes(const std::string& piece, TokenDisplayStyle style) {
  std::string out;
  if (style != TokenDisplayStyle::ByteLevel && byteFallback(piece, out)) return out;
  if (style == TokenDisplayStyle::Metaspace) return metaspace(piece);
  if (byteLevel(piece, out)) return out;
  return style == TokenDisplayStyle::ByteLevel ? piece : metaspace(piece);
}

std::string tokenDisplayText(const std::string& piece, TokenDisplayStyle style) {
  return sanitize(tokenBytes(piece, style));
}

}  // namespace attnlab
