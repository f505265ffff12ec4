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
  /// The trace's maps on demand: a long input keeps none (trace.h), and views ask here for the ones they draw.
  std::shared_ptr<HeadMapCache> maps = std::make_shared<HeadMapCache>();
  /// An encoder–decoder's run (encdec_run.h), null for every other model: this result is then its decoder's side.
  std::shared_ptr<const EncDecRun> encdec;
};

/// Runs the parameters' model on their sentence, with the heads of p.prediction.ablate switched off. `model` may be
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
/// Prediction chapter's ablation: every view then draws the ablated model).
Intervention ablationOf(const PredictionSettings& s);

/// Throws InputError when the selected layer/head does not exist in the trace.
void checkSelection(const Params& p, const Trace& t);

}  // namespace attnlab
