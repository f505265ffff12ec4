#include "core/checkpoint/hf_model.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/text/bpe_tokenizer.h"
#include "core/text/hf_tokenizer.h"

namespace attnlab {

HfModel::HfModel(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer, std::shared_ptr<SafetensorsSet> file,
                 std::string name)
    : config_(std::move(config)), tokenizer_(std::move(tokenizer)), file_(std::move(file)), name_(std::move(name)) {}

ModelInfo HfModel::info() const {
  ModelInfo i;
  i.name = name_ + " (" + toString(config_.arch) + ", " + std::to_string(config_.layers) + " layers, " +
           std::to_string(config_.heads) + " heads, d " + std::to_string(config_.dModel) + ")";
  i.kind = config_.modelType;
  i.layers = config_.layers;
  i.heads = config_.heads;
  i.dModel = config_.dModel;
  i.dHead = config_.dHead();
  i.maxTokens = config_.maxPositions;
  if (dynamic_cast<const BpeTokenizer*>(tokenizer_.get())) i.pieceStyle = "byte-level";
  if (const auto* t = dynamic_cast<const HfTokenizer*>(tokenizer_.get()))
    i.pieceStyle = t->displayStyle() == TokenDisplayStyle::ByteLevel   ? "byte-level"
                   : t->displayStyle() == TokenDisplayStyle::Metaspace ? "metaspace"
                                                                       : "";
  return i;
}

void HfModel::checkInput(const TokenizedText& text) const {
  const std::size_t n = text.ids.size();
  if (n == 0 && tokenizer_->vocabSize() == 0)  // not the user's text: every text gives no tokens
    throw InputError(name_ +
                     ": the tokenizer's vocabulary is empty, so no text gives a token (is tokenizer.json whole?)");
  if (n == 0 || text.tokens.size() != n) throw InputError("the text has no tokens: type at least one word");
  const int limit = info().maxTokens;  // the position table, or a decoder's longest RoPE context
  if (n > static_cast<std::size_t>(limit))
    throw InputError("the text has " + std::to_string(n) + " tokens; " + name_ + " takes at most " +
                     std::to_string(limit) + (config_.arch == HfArch::Decoder ? "" : " (its position table)"));
  for (std::size_t i = 0; i < n; ++i)
    if (text.ids[i] < 0 || text.ids[i] >= config_.vocabSize) {
      // A token the tokenizer added itself (BOS, an added token of tokenizer.json) covers no text: its name is the
      // vocabulary's piece (it was named "" before).
      const std::string shown = !text.tokens[i].text.empty() ? text.tokens[i].text : tokenizer_->pieceOf(text.ids[i]);
      const std::string table = "the model's embedding table of " + std::to_string(config_.vocabSize) + " rows";
      if (shown.empty())  // an id of the post-processor's template that no vocabulary entry or added token has
        throw InputError("the tokenizer adds token id " + std::to_string(text.ids[i]) + " at position " +
                         std::to_string(i) + " (its post-processor's template), which no vocabulary entry has and " +
                         "is outside " + table);
      throw InputError("token \"" + shown + "\" (position " + std::to_string(i) + ") has id " +
                       std::to_string(text.ids[i]) + ", outside " + table);
    }
}

Trace HfModel::startTrace(const TokenizedText& text, bool causal) const {
  Trace t;
  for (const Token& tok : text.tokens) t.tokens.push_back(tok.text);
  t.tokenIds = text.ids;
  t.causal = causal;
  return t;
}

int HfModel::vocabularySize() const {
  return tokenizer_ ? std::min(tokenizer_->vocabSize(), config_.vocabSize) : config_.vocabSize;
}

}  // namespace attnlab
