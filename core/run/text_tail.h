#pragma once
// The end of a text that fits a model: what "Keep the last N tokens" writes into the sentence editor when a model is
// opened on a text longer than its positions (issue 31). The text itself is cut (not only the tokens run, as
// Params::keepLastTokens does), so the editor, the views and a saved session all hold the same, shorter text.
#include <string>

#include "core/model/model.h"

namespace attnlab {

/// A suffix of `text` that tokenizes as the text's own last tokens and has at most `positions` tokens (the longest
/// one unless eight cuts in a row tokenize otherwise: the tries then thin out), the
/// tokenizer's own tokens (BOS, [CLS], [SEP]: they cover no text) counted. `text` itself when it fits. Throws
/// InputError when not even one token of text fits beside the tokenizer's own tokens.
std::string textTail(const Model& model, const std::string& text, int positions);

}  // namespace attnlab
