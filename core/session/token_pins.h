#pragma once
// Pinned tokens (Params::selection.pinned): a set of token indices kept as an ascending list. The
// rules of a click on a token and of `--pin 2,5`, shared by the views and the command line.
#include <string>
#include <vector>

namespace attnlab {

/// Sorted, without repeats.
std::vector<int> normalizedPins(std::vector<int> pins);

/// The pins after a click on `token`: a plain click pins it alone (or unpins it when it is the only
/// pin); with `extend` (Ctrl/Shift) it is added, or removed when already pinned.
std::vector<int> pinsAfterClick(const std::vector<int>& pins, int token, bool extend);

/// "2,5" → {2, 5}. Throws InputError naming `what` for anything but non-negative integers.
std::vector<int> parsePinList(const std::string& text, const std::string& what);

/// The pins that name a token of an n-token sentence (the others wait for a longer sentence).
std::vector<int> pinsWithin(const std::vector<int>& pins, int n);

}  // namespace attnlab
