#pragma once
// A trained (or freshly initialised) tiny transformer as an ordinary Model of the program, so every
// view — heatmaps, variants, spectra, rank collapse, export — works on what the Training view made.
// Typed text becomes tokens of the tiny vocabulary: words are cut by the word tokenizer and mapped into
// the symbols [2, V) by a hash, distinct words of one sentence getting distinct symbols (linear probing),
// so "the cat … the cat" repeats exactly where the words repeat — which is all an induction head needs.
// A BOS token (id 0) is prepended, as in training.
#include <string>

#include "core/model/model.h"
#include "core/train/tiny_config.h"
#include "core/train/tiny_params.h"

namespace attnlab {

class TinyModel : public Model {
 public:
  /// Throws InputError when the weights do not have the shapes the config implies.
  TinyModel(TinyConfig config, TinyParams<float> params, std::string name);
  TinyModel(const TinyModel&) = delete;  // unembedding_ points into params_
  TinyModel& operator=(const TinyModel&) = delete;
  ModelInfo info() const override;
  TokenizedText tokenize(const std::string& text) const override;
  /// Throws InputError for an empty text or one longer than the context (BOS included).
  Trace forward(const TokenizedText& text, const RunControl& control = {}, const Intervention& iv = {}) const override;
  /// ln_f (when the model has LayerNorms) and the unembedding [d, V]: predictions and the logit lens.
  const Unembedding* unembedding() const override { return &unembedding_; }
  /// "<bos>" for id 0, "#k" for the others: the tiny vocabulary has symbols, not words.
  std::string vocabularyPiece(int id) const override;
  int vocabularyId(const std::string& piece) const override;

  const TinyConfig& config() const { return config_; }
  const TinyParams<float>& params() const { return params_; }
  int vocabularySize() const override { return config_.vocab; }
  /// BOS (0) and the separator (1) of the training tasks: typed words map to symbols [2, V) only.
  bool isReservedToken(int id) const override { return id < kTinyFirstSymbol; }

 private:
  TinyConfig config_;
  TinyParams<float> params_;
  std::string name_;
  Unembedding unembedding_;
};

/// The symbol a word gets in a vocabulary of `vocab` ids before probing: 2 + FNV-1a(word) mod (V − 2).
int tinyWordSymbol(const std::string& word, int vocab);

}  // namespace attnlab
