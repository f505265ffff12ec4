#pragma once
// A model that reads two texts (issue 33): a source through an encoder, a target through a decoder with
// cross-attention. Two kinds: an encoder–decoder checkpoint folder (EncDecFolderModel, encdec_run.h: Marian, BART, T5,
// builtin:reverse), which has an output head, and the built-in model's rung 7 (BuiltinTwoTextModel,
// builtin_two_text.h), which has none. runEncDecPipeline, the views and `attnlab dump` read this interface; what needs
// an output head or the folder's decoder (Translate, Next token, Generate N, prediction, logit lens, reuse of an
// earlier run) asks folder() and, when it is null, says why with noOutputHeadReason().
#include <memory>
#include <string>

#include "core/checkpoint/encdec_model.h"
#include "core/model/model.h"

namespace attnlab {

class EncDecFolderModel;

class TwoTextModel : public Model {
 public:
  /// The source text's tokens as the encoder reads them.
  virtual TokenizedText tokenizeSource(const std::string& text) const = 0;
  /// The decoder's input for a target text (a folder: its start token first; the built-in rung: the words alone).
  virtual TokenizedText tokenizeTarget(const std::string& text) const = 0;
  /// Both texts through the model, the heads of `ablation` switched off; `reuse` as EncDecModel::forward takes it
  /// (only a folder's: encDecReuse). The traces' tokens are display strings (a folder: its vocabulary's pieces).
  /// Throws InputError for what the model cannot run (an empty target of the built-in rung, an ablation it lacks).
  virtual EncDecTrace forwardTexts(const TokenizedText& source, const TokenizedText& target, const EncDecReuse& reuse,
                                   const EncDecAblation& ablation, const RunControl& control) const = 0;
  /// A Model describing one stack (its layers, heads, tokenizer), as the views' results carry.
  virtual std::shared_ptr<const Model> stackModel(bool decoder) const = 0;
  virtual const std::string& name() const = 0;
  /// Tokens either text may have (0: no limit).
  virtual int maxPositions() const = 0;
  /// True when the decoder ends in an output head (logits over a target vocabulary): the model can translate.
  virtual bool hasOutputHead() const = 0;
  /// The checkpoint folder behind the model, or null (the built-in rung).
  virtual const EncDecFolderModel* folder() const { return nullptr; }
  /// Why Translate / Next token / Generate / predict are not there (empty when they are).
  virtual std::string noOutputHeadReason() const { return {}; }
};

}  // namespace attnlab
