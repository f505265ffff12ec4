#include "core/run/text_tail.h"

#include <algorithm>
#include <vector>

#include "core/base/errors.h"

namespace attnlab {

std::string textTail(const Model& model, const std::string& text, int positions) {
  if (positions <= 0) return text;  // no limit
  const TokenizedText all = model.tokenize(text);
  const auto count = [](const TokenizedText& t) { return static_cast<int>(t.tokens.size()); };
  if (count(all) <= positions) return text;
  std::vector<int> starts;  // index of each token of text (one covering some bytes)
  for (std::size_t i = 0; i < all.tokens.size(); ++i)
    if (all.tokens[i].byteBegin < all.tokens[i].byteEnd) starts.push_back(static_cast<int>(i));
  const int own = count(all) - static_cast<int>(starts.size());
  // The tail must tokenize as the text's last tokens did: a cut inside a word ("##ing" of a WordPiece, a byte-level
  // merge across the cut) tokenizes differently, so one token fewer is tried until the tail's tokens of text are the
  // text's own. Each try tokenizes at most `positions` tokens of text; after eight tries one step at a time the steps
  // double, so a text no cut agrees with costs O(positions · log positions) tokens of work, not O(positions²) (a
  // 2,048-position model would tokenize 2,048 tails of up to 2,048 tokens).
  int step = 1, tries = 0;
  for (int keep = std::min(positions - own, static_cast<int>(starts.size())); keep >= 1;
       keep -= step, step = ++tries < 8 ? 1 : step * 2) {
    const std::size_t first = static_cast<std::size_t>(starts[starts.size() - static_cast<std::size_t>(keep)]);
    std::string tail = text.substr(static_cast<std::size_t>(all.tokens[first].byteBegin));
    const TokenizedText cut = model.tokenize(tail);
    if (count(cut) > positions) continue;
    std::vector<std::string> kept;
    for (const Token& tok : cut.tokens)
      if (tok.byteBegin < tok.byteEnd) kept.push_back(tok.text);
    bool same = kept.size() == static_cast<std::size_t>(keep);
    for (std::size_t i = 0; same && i < kept.size(); ++i)
      same = kept[i] == all.tokens[static_cast<std::size_t>(starts[starts.size() - kept.size() + i])].text;
    if (same) return tail;
  }
  throw InputError("no token of the text fits in " + std::to_string(positions) + " positions beside the tokenizer's " +
                   std::to_string(own) + " own tokens");
}

}  // namespace attnlab
