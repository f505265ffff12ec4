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

}  // namespace attnlab
