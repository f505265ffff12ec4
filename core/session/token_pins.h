#pragma once
// Pinned tokens (Params::selection.pinned): a set of token indices kept as an ascending list. The
// rules of a click on a token and of `--pin 2,5`, shared by the views and the command line.
#include <string>
#include <vector>

#include "core/text/word_tokenizer.h"

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

/// Pins carried through an edit of the text, as a text editor carries a bookmark (issue 31): the edit is what lies
/// between the common prefix and the common suffix of `oldText` and `newText` (bytes). A pinned token before the edit
/// keeps its bytes, one after it moves with the suffix; it keeps its pin when the new text has a token with exactly
/// those bytes and that text (so "cat" typed on to "cats" is a changed token). Tokens are those the views index
/// (the run's, after keeping the last tokens). The others are dropped, named in `dropped` (their text).
struct PinsAfterEdit {
  std::vector<int> pins;
  std::vector<std::string> dropped;
};
PinsAfterEdit pinsAfterEdit(const std::vector<int>& pins, const std::string& oldText,
                            const std::vector<Token>& oldTokens, const std::string& newText,
                            const std::vector<Token>& newTokens);

}  // namespace attnlab
