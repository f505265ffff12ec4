#include "core/text/text_offsets.h"

#include "core/text/utf8.h"

namespace attnlab {

Utf16Offsets::Utf16Offsets(std::string_view s) : start_(s.size() + 1), end_(s.size()) {
  int u16 = 0;
  for (std::size_t pos = 0; pos < s.size();) {
    const utf8::CodePoint cp = utf8::decode(s, pos);
    const int units = utf8::utf16Units(cp.value);
    for (std::size_t i = pos; i < pos + cp.size; ++i) {
      start_[i] = u16;
      end_[i] = u16 + units;
    }
    pos += cp.size;
    u16 += units;
  }
  start_[s.size()] = u16;
}

Token Utf16Offsets::token(std::string text, std::size_t b, std::size_t e) const {
  Token t;
  t.text = std::move(text);
  t.byteBegin = static_cast<int>(b);
  t.byteEnd = static_cast<int>(e);
  t.u16Begin = begin(b);
  t.u16End = e > b ? end(e) : t.u16Begin;
  return t;
}

}  // namespace attnlab
