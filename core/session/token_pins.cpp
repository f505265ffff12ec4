#include "core/session/token_pins.h"

#include <algorithm>
#include <cctype>

#include "core/base/errors.h"

namespace attnlab {

std::vector<int> normalizedPins(std::vector<int> pins) {
  std::sort(pins.begin(), pins.end());
  pins.erase(std::unique(pins.begin(), pins.end()), pins.end());
  return pins;
}

std::vector<int> pinsAfterClick(const std::vector<int>& pins, int token, bool extend) {
  const bool pinned = std::find(pins.begin(), pins.end(), token) != pins.end();
  if (!extend) return pinned && pins.size() == 1 ? std::vector<int>{} : std::vector<int>{token};
  std::vector<int> out = pins;
  if (pinned)
    out.erase(std::find(out.begin(), out.end(), token));
  else
    out.push_back(token);
  return normalizedPins(std::move(out));
}

std::vector<int> parsePinList(const std::string& text, const std::string& what) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const bool digits = !item.empty() && item.size() <= 7 &&
                        std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits) throw InputError(what + " expects token indices separated by commas (e.g. 2,5), not '" + text + "'");
    out.push_back(std::stoi(item));
    start = comma + 1;
  }
  return normalizedPins(std::move(out));
}

std::vector<int> pinsWithin(const std::vector<int>& pins, int n) {
  std::vector<int> out;
  for (int p : pins)
    if (p >= 0 && p < n) out.push_back(p);
  return out;
}

PinsAfterEdit pinsAfterEdit(const std::vector<int>& pins, const std::string& oldText,
                            const std::vector<Token>& oldTokens, const std::string& newText,
                            const std::vector<Token>& newTokens) {
  const std::size_t most = std::min(oldText.size(), newText.size());
  std::size_t prefix = 0;
  while (prefix < most && oldText[prefix] == newText[prefix]) ++prefix;
  std::size_t suffix = 0;  // not overlapping the prefix in either text
  while (suffix < most - prefix && oldText[oldText.size() - 1 - suffix] == newText[newText.size() - 1 - suffix])
    ++suffix;
  const long long shift = static_cast<long long>(newText.size()) - static_cast<long long>(oldText.size());
  const long long editEnd = static_cast<long long>(oldText.size() - suffix);  // old bytes from here on moved
  PinsAfterEdit out;
  for (int pin : normalizedPins(pins)) {
    if (pin >= static_cast<int>(oldTokens.size())) {  // past the end: waits for a longer text, as before
      out.pins.push_back(pin);
      continue;
    }
    const Token& t = oldTokens[static_cast<std::size_t>(pin)];
    long long begin = -1;
    if (static_cast<std::size_t>(t.byteEnd) <= prefix)
      begin = t.byteBegin;  // before the edit (a token the tokenizer added, covering nothing, included)
    else if (t.byteBegin >= editEnd)
      begin = t.byteBegin + shift;
    int found = -1;
    for (std::size_t i = 0; begin >= 0 && i < newTokens.size() && found < 0; ++i)
      if (newTokens[i].byteBegin == begin && newTokens[i].byteEnd - newTokens[i].byteBegin == t.byteEnd - t.byteBegin &&
          newTokens[i].text == t.text)
        found = static_cast<int>(i);
    if (found >= 0)
      out.pins.push_back(found);
    else
      out.dropped.push_back(t.text);
  }
  out.pins = normalizedPins(out.pins);
  return out;
}

}  // namespace attnlab
