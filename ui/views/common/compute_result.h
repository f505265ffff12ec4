#pragma once
// What the worker hands to the views: the parameters it ran, the model and its Trace. Immutable and
// shared, so views on the GUI thread read it while the worker computes the next one.
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <memory>
#include <string>

#include "core/run/pipeline.h"
#include "core/session/view_numbers.h"

namespace attnlab::ui {

struct ComputeResult {
  Params params;
  std::shared_ptr<const PipelineResult> run;  ///< null when the run failed
  QString error;                              ///< what went wrong, for the status bar
  bool cancelled = false;                     ///< stopped by its cancel flag: nothing to show
  double forwardMs = 0;
  quint64 generation = 0;
  /// The model loaded but refused the text as longer than its positions (issue 31): both lengths, and the text's
  /// end that fits (textTail), which the window offers to keep. modelPositions is 0 for every other result.
  int textTokens = 0;
  int modelPositions = 0;
  std::string fittingTail;
  /// Which text was too long: "text" (a single-text model's sentence), an encoder–decoder's "source" (the sentence)
  /// or "target" (params.target; its lengths count the decoder's start token).
  std::string tooLongText = "text";

  bool textTooLong() const { return modelPositions > 0; }

  bool ok() const { return run != nullptr; }
  /// What the window rebuilds the model from (folder, configuration, case folding): equal identities are the same
  /// weights and tokenizer. Compare these, not Model addresses — a freed model's address can be another's.
  std::string modelIdentity() const;
  const Trace& trace() const { return run->trace; }
  /// The tokens as a reader sees them: GPT-2's byte-level pieces decoded (byteLevelDisplay), other
  /// models' tokens as they are. For axes, legends and figures.
  QStringList tokenLabels() const;
  /// The tokens exactly as the tokenizer's vocabulary spells them ("Ġcat"): tooltips, and the
  /// "token" labels of exported numbers, so that they look up in vocab.json.
  QStringList rawTokenLabels() const;
  /// Replaces, in every matrix of `n`, row or column labels that are the whole displayed token list by
  /// the raw tokens (views label their numbers with tokenLabels(); files keep the vocabulary's spelling).
  void useRawTokens(ViewNumbers& n) const;
  /// A vocabulary id as a reader sees it: pieceLabel of the model's piece; for word-level vocabularies
  /// (no piece style: the trained tiny models give each sentence's words their own symbols, "#37") the
  /// word of the sentence that holds the id, when one does.
  QString idLabel(int id) const;
  /// Head (l, h)'s attention weights [n, n] / scores: stored (short inputs) or recomputed and cached (long ones,
  /// head_maps.h). Throws InputError when one map would exceed the cache's budget.
  std::shared_ptr<const Mat> attentionMap(int l, int h) const { return run->maps->attention(run->trace, l, h); }
  std::shared_ptr<const Mat> scoresMap(int l, int h) const { return run->maps->scores(run->trace, l, h); }
  /// The selected layer/head clamped into the trace's range.
  int layer() const;
  int head() const;
};

/// A GPT-2 byte-level BPE piece as text: its stand-in characters ("Ġ" for a space, "Ċ" for a newline,
/// OpenAI's bytes_to_unicode) turned back into bytes and read as UTF-8, with the invisible made
/// visible: space → "·", newline → "↵", tab → "⇥", other control bytes and the bytes of a UTF-8
/// sequence cut between two tokens → "<0xE6>". "Ġcat" → "·cat". A string that is not made of stand-ins
/// (an added token such as <|endoftext|> is) comes back unchanged.
QString byteLevelDisplay(const std::string& piece);
/// A vocabulary piece as a reader sees it, for a tokenizer of the given ModelInfo::pieceStyle
/// ("byte-level": byteLevelDisplay; "metaspace": "▁" as "·", whole bytes decoded; else as written).
QString pieceLabel(const std::string& piece, const std::string& style);

using ResultPtr = std::shared_ptr<const ComputeResult>;

}  // namespace attnlab::ui

Q_DECLARE_METATYPE(attnlab::ui::ResultPtr)
