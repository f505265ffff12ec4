#include "core/run/builtin_two_text.h"

#include "core/base/errors.h"

namespace attnlab {

const char* const kBuiltinEmptyTarget =
    "type a target text: rung 7 reads a source and a target, and the built-in model has no output head to write "
    "the target itself";

namespace {

std::vector<std::string> wordsOf(const TokenizedText& t) {
  std::vector<std::string> words;
  words.reserve(t.tokens.size());
  for (const Token& tok : t.tokens) words.push_back(tok.text);
  return words;
}

/// One stack of rung 7 as a single-text Model: its info() and words for the views. Its forward() refuses, as a
/// folder's stacks do: a stack alone cannot be re-run (the decoder needs the source's encoding).
class BuiltinStackModel : public Model {
 public:
  BuiltinStackModel(std::shared_ptr<const BuiltinEncDec> model, std::string name, bool decoder)
      : model_(std::move(model)), name_(std::move(name)), decoder_(decoder) {}
  ModelInfo info() const override {
    ModelInfo i = model_->encoder().info();
    i.name = name_ + (decoder_ ? " · decoder" : " · encoder");
    return i;
  }
  TokenizedText tokenize(const std::string& text) const override { return model_->encoder().tokenize(text); }
  Trace forward(const TokenizedText&, const RunControl&, const Intervention&) const override {
    throw InputError(std::string("the ") + (decoder_ ? "decoder" : "encoder") +
                     " of rung 7 (encoder–decoder) cannot be run again alone: this view needs a single-text model "
                     "(rungs 1–6)");
  }

 private:
  std::shared_ptr<const BuiltinEncDec> model_;
  std::string name_;
  bool decoder_;
};

}  // namespace

BuiltinTwoTextModel::BuiltinTwoTextModel(const ModelConfig& config, bool lowercase, const RunControl& control)
    : model_(std::make_shared<const BuiltinEncDec>(config, lowercase, control)) {
  const ModelInfo i = model_->encoder().info();
  name_ = "built-in encoder–decoder (d " + std::to_string(i.dModel) + ", " + std::to_string(i.heads) + " heads, " +
          std::to_string(i.layers) + " layers, seed " + std::to_string(config.seed) + ")";
}

ModelInfo BuiltinTwoTextModel::info() const { return stackModel(true)->info(); }

Trace BuiltinTwoTextModel::forward(const TokenizedText&, const RunControl&, const Intervention&) const {
  throw InputError("rung 7 (encoder–decoder) runs a source and a target text together (runEncDecPipeline)");
}

TokenizedText BuiltinTwoTextModel::tokenizeSource(const std::string& text) const {
  return model_->encoder().tokenize(text);
}

TokenizedText BuiltinTwoTextModel::tokenizeTarget(const std::string& text) const {
  // The words alone, no start token: with no output head no row predicts a next word, so nothing is shifted right.
  return model_->encoder().tokenize(text);
}

EncDecTrace BuiltinTwoTextModel::forwardTexts(const TokenizedText& source, const TokenizedText& target,
                                              const EncDecReuse&, const EncDecAblation& ablation,
                                              const RunControl& control) const {
  if (!ablation.empty())
    throw InputError(name_ + " cannot switch heads off (the encoder–decoder checkpoints can): turn the ablation off");
  if (source.tokens.empty()) throw InputError("the source text is empty: type a source sentence");
  if (target.tokens.empty()) throw InputError(std::string("the target text is empty: ") + kBuiltinEmptyTarget);
  return model_->forward(wordsOf(source), wordsOf(target), control);
}

std::shared_ptr<const Model> BuiltinTwoTextModel::stackModel(bool decoder) const {
  return std::make_shared<BuiltinStackModel>(model_, name_, decoder);
}

std::string BuiltinTwoTextModel::noOutputHeadReason() const {
  return "the built-in model has no output head (no vocabulary, no logits): rung 7 shows how a decoder reads a typed "
         "target through cross-attention, it cannot translate or predict a token";
}

}  // namespace attnlab
