#pragma once
// What switching heads off or swapping in another run's activations does to the prediction
// (DESIGN.md, Round two):
//   ablation  the prediction with heads zeroed or replaced by their mean over positions (intervention.h):
//             the target's probability before and after, and KL(clean ‖ ablated) at the position;
//   patching  clean and corrupted texts of the same token length; the effect of a component is
//             (patched − corrupt) / (clean − corrupt) of logit(target) − logit(versus) at the last position,
//             when that component is copied from the clean run into the corrupted one.
#include <vector>

#include "core/model/model.h"
#include "core/predict/prediction.h"

namespace attnlab {

struct AblationEffect {
  int position = 0, target = 0;
  double cleanProb = 0.0, ablatedProb = 0.0;  ///< the target's probability without and with the ablation
  double kl = 0.0;                            ///< KL(clean ‖ ablated) of the distributions at the position, nats
  Vec ablatedLogits;                          ///< [vocab]
  Trace ablated;                              ///< the ablated run, for the views downstream
};
/// Runs `text` with `iv` and compares it with the clean trace at `position` (−1: last); target −1: the
/// clean prediction. Throws InputError (a head that does not exist, a position outside the text).
AblationEffect ablationEffect(const Model& model, const TokenizedText& text, const Trace& clean, const Intervention& iv,
                              int position = -1, int target = -1, double temperature = 1.0);

struct PatchingResult {
  MatD heads;  ///< [layers, heads]
  MatD resid;  ///< [(layers + 1), n]: row l patches the stream entering layer l, the last row the final stream
  double cleanDiff = 0.0, corruptDiff = 0.0;
};
/// layers·heads (+ (layers + 1)·n with `residual`) patched runs of the corrupted text (Model::lastRowsWith, one
/// batch per layer), reporting progress
/// and honouring cancel through `control`. Throws InputError (different token lengths, no unembedding)
/// and Cancelled.
PatchingResult activationPatching(const Model& model, const TokenizedText& clean, const TokenizedText& corrupt,
                                  int target, int versus, const RunControl& control = {}, bool residual = true);

}  // namespace attnlab
