#pragma once
// Parameters → model → tokens → Trace: the one path the GUI's worker and the command line share.
#include <memory>

#include "core/model/head_maps.h"
#include "core/model/model.h"
#include "core/session/params.h"

namespace attnlab {

struct EncDecRun;

struct PipelineResult {
  std::shared_ptr<const Model> model;
  ModelInfo info;
  TokenizedText text;
  Trace trace;
  Intervention intervention;  ///< the ablation the trace was run with
  /// Resample ablation (with heads ablated): the run of the resample text, which intervention.resample points into.
  /// Shared, so a copied result's pointer stays valid and the next result reuses it while the text is unchanged.
  std::shared_ptr<const Trace> resampleRun;
  /// The trace's maps on demand: a long input keeps none (trace.h), and views ask here for the ones they draw.
  std::shared_ptr<HeadMapCache> maps = std::make_shared<HeadMapCache>();
  /// An encoder–decoder's run (encdec_run.h), null for every other model: this result is then its decoder's side.
  std::shared_ptr<const EncDecRun> encdec;
};

/// Runs the parameters' model on their sentence, with the heads of p.prediction.ablate switched off (resample mode:
/// replaced by their outputs in a run of p.prediction.resampleText, tokenized and cut as the sentence is; an empty or
/// shorter resample text is an InputError). `model` may be
/// passed in to reuse an already built one (the GUI caches); when null it is made from the parameters. Throws
/// InputError / Cancelled. `previous` (the GUI's last result) lends its trace's layers before the first one whose
/// ablation changed when it ran the same model on the same tokens (Intervention::reuse), or, for other tokens with the
/// same ablations, the rows before the first changed token of a long input (Intervention::prefix).
PipelineResult runPipeline(const Params& p, std::shared_ptr<const Model> model = nullptr,
                           const RunControl& control = {}, std::shared_ptr<const PipelineResult> previous = nullptr);

/// `text` cut to its last min(keep, maxTokens) tokens when longer (a leading token the tokenizer added — a BOS or
/// [CLS], which covers no text — stays first); unchanged when keep is 0 or the text fits.
TokenizedText keepLastTokens(TokenizedText text, int keep, int maxTokens, const Model& model);

/// The heads the parameters switch off, as the intervention every forward pass of the pipeline applies (the
/// Prediction chapter's ablation: every view then draws the ablated model). Resample mode leaves iv.resample null: the
/// run it points to is made by runPipeline (or resampleRunFor).
Intervention ablationOf(const PredictionSettings& s);

/// Whether `iv` needs a resample run (resample mode with heads ablated).
bool needsResampleRun(const Intervention& iv);
/// The resample text tokenized as a text of `tokens` tokens was: cut to its last `keep` the same way
/// (Params::keepLastTokens; 0 = not cut). Throws InputError when it is empty or has fewer than `tokens` tokens (the
/// core takes row i of the resample run for row i of the text); `what` names the text ("the sentence's").
TokenizedText resampleTokens(const Model& model, const std::string& text, int tokens, int keep,
                             const std::string& what = "the sentence's");
/// The run of resampleTokens(…) that resample ablation takes the heads' outputs from. `reuse` (the last result's
/// resample run of this model) is returned when it holds the same tokens.
std::shared_ptr<const Trace> resampleRunFor(const Model& model, const std::string& text, int tokens, int keep,
                                            const RunControl& control = {},
                                            std::shared_ptr<const Trace> reuse = nullptr,
                                            const std::string& what = "the sentence's");

/// Throws InputError when the selected layer/head does not exist in the trace.
void checkSelection(const Params& p, const Trace& t);

}  // namespace attnlab
