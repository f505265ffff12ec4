#pragma once
// A long input of n token ids spread over a model's vocabulary (no tokenizer needed): the long-text benches' text.
#include <algorithm>
#include <string>

#include "core/model/model.h"

namespace attnlab::bench {

/// n ids (1000 + 7919·i) mod vocabulary, each shown as "#id".
inline TokenizedText idsOf(const Model& m, int n) {
  TokenizedText t;
  const int vocab = std::max(1, m.vocabularySize());
  for (int i = 0; i < n; ++i) {
    t.ids.push_back((1000 + 7919 * i) % vocab);
    t.tokens.push_back(Token{"#" + std::to_string(t.ids.back())});
  }
  return t;
}

}  // namespace attnlab::bench
