#pragma once
// What GPT-2 and BERT checkpoints share as Models: a config.json, a tokenizer, weights mapped from
// model.safetensors (kept alive by the model), and the checks every forward pass starts with.
#include <memory>
#include <string>

#include "core/checkpoint/hf_config.h"
#include "core/checkpoint/safetensors_set.h"
#include "core/model/blocks.h"
#include "core/model/model.h"
#include "core/text/tokenizer.h"

namespace attnlab {

/// The MLP's non-linearity in place.
inline void applyActivation(Mat& x, HfActivation a) {
  switch (a) {
    case HfActivation::GeluTanh:
      geluTanhInPlace(x);
      break;
    case HfActivation::GeluErf:
      geluErfInPlace(x);
      break;
    case HfActivation::Relu:
      reluInPlace(x);
      break;
  }
}

class HfModel : public Model {
 public:
  HfModel(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer, std::shared_ptr<SafetensorsSet> file,
          std::string name);

  ModelInfo info() const override;
  /// The model's tokens including its special tokens ([CLS] … [SEP] for BERT; none for GPT-2).
  TokenizedText tokenize(const std::string& text) const override { return tokenizer_->encode(text, true); }

  std::string vocabularyPiece(int id) const override { return tokenizer_ ? tokenizer_->pieceOf(id) : std::string(); }
  int vocabularyId(const std::string& piece) const override { return tokenizer_ ? tokenizer_->idOf(piece) : -1; }
  const Unembedding* unembedding() const override { return unembedding_.data ? &unembedding_ : nullptr; }

  const HfConfig& config() const { return config_; }
  const TextTokenizer& tokenizer() const { return *tokenizer_; }
  /// The weight files the model was read from (headers and paths: the model's card).
  const SafetensorsSet* weightFiles() const { return file_.get(); }
  /// The checkpoint's name (its folder), as messages give it; info().name adds the architecture.
  const std::string& name() const { return name_; }
  /// The ids both the tokenizer and the embedding table know.
  int vocabularySize() const override;

 protected:
  /// Throws InputError for an empty input, one longer than the position table, or an id outside the
  /// embedding table (a token added to the tokenizer but not to the model).
  void checkInput(const TokenizedText& text) const;
  /// A Trace with tokens, ids and `causal` filled in.
  Trace startTrace(const TokenizedText& text, bool causal) const;

  HfConfig config_;
  std::unique_ptr<TextTokenizer> tokenizer_;
  std::shared_ptr<SafetensorsSet> file_;  ///< owns the mapping every weight view points into
  std::string name_;
  Unembedding unembedding_;  ///< filled by the models that have one (GPT-2's ln_f + wte, the decoders)
};

}  // namespace attnlab
