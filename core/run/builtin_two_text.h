#pragma once
// The built-in model's rung 7 (Mode::EncDec, core/model/builtin_encdec.h) as a two-text model: what makeModel
// returns for the built-in parameters at that rung. Both texts are split into words by the built-in tokenizer (no
// ids); the decoder has no output head, so it translates nothing: the target is typed (teacher forcing).
#include <memory>

#include "core/model/builtin_encdec.h"
#include "core/run/two_text_model.h"

namespace attnlab {

class BuiltinTwoTextModel : public TwoTextModel {
 public:
  /// Throws InputError as BuiltinModel does for an invalid config.
  BuiltinTwoTextModel(const ModelConfig& config, bool lowercase, const RunControl& control = {});

  /// The decoder's (the stack the pipeline's result shows first), as a folder's info() is.
  ModelInfo info() const override;
  TokenizedText tokenize(const std::string& text) const override { return tokenizeSource(text); }
  /// Refuses: one text is not enough (runEncDecPipeline runs both).
  Trace forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const override;

  TokenizedText tokenizeSource(const std::string& text) const override;
  TokenizedText tokenizeTarget(const std::string& text) const override;
  /// Refuses a non-empty ablation (the built-in model switches no heads off) and an empty target.
  EncDecTrace forwardTexts(const TokenizedText& source, const TokenizedText& target, const EncDecReuse& reuse,
                           const EncDecAblation& ablation, const RunControl& control) const override;
  std::shared_ptr<const Model> stackModel(bool decoder) const override;
  const std::string& name() const override { return name_; }
  int maxPositions() const override { return model_->config().maxTokens; }
  bool hasOutputHead() const override { return false; }
  std::string noOutputHeadReason() const override;

  const BuiltinEncDec& model() const { return *model_; }

 private:
  std::shared_ptr<const BuiltinEncDec> model_;
  std::string name_;
};

/// The message of an empty target at rung 7: nothing to read, and no output head to write one.
extern const char* const kBuiltinEmptyTarget;

}  // namespace attnlab
