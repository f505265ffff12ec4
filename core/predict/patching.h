#pragma once
// What switching heads off or swapping in another run's activations does to the prediction
// (DESIGN.md, Round two):
//   ablation  the prediction with heads zeroed or replaced by their mean over positions (intervention.h):
//             the target's probability before and after, and KL(clean ‖ ablated) at the position;
//   patching  clean and corrupted texts of the same token length; the effect of a component is
//             (patched − corrupt) / (clean − corrupt) of logit(target) − logit(versus) at the last position,
//             when that component is copied from the clean run into the corrupted one.
#include <string>
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

/// Which maps activationPatching makes (issue 31: a real-size model's full map takes minutes):
///   All            heads [layers, heads] and the residual stream [(layers + 1), n] (the default)
///   Heads          each head's output at every position: layers·heads runs
///   Positions      the residual stream entering each layer at each position: (layers + 1)·n runs
///   HeadPositions  each head's output at one position: [layers·heads, n], layers·heads·n runs
enum class PatchMap { All, Heads, Positions, HeadPositions };
/// "all", "heads", "positions", "head-position".
const char* patchMapName(PatchMap map);
/// The inverse; throws InputError "<what> must be all, heads, positions or head-position, got '<name>'".
PatchMap parsePatchMap(const std::string& name, const std::string& what);

/// Below this |clean − corrupt| (of logit(target) − logit(versus)) the normalised effects mean nothing: a patch
/// moves the difference by amounts of its own size, and dividing by a tiny span blows them up (random weights:
/// a span of 8e-4 gave effects of ±30). The result then carries a warning.
inline constexpr double kMinPatchingSpan = 0.1;

struct PatchingOptions {
  PatchMap map = PatchMap::All;
  /// Ablations in force (ablate, mode, resample; no patches): the clean, the corrupted and every patched run are made
  /// with them, so the map says what each component does on top of them.
  Intervention ablation;
  /// Patches that copy values equal to the corrupted run's own (the rows before the first token where the texts
  /// differ, the unchanged tokens' embeddings) change nothing: their effect is 0 without a run. False runs them all
  /// (the reference the benchmark compares with).
  bool skipUnchanged = true;
};

struct PatchingResult {
  PatchMap map = PatchMap::All;
  MatD heads;          ///< [layers, heads] (All, Heads; else empty)
  MatD resid;          ///< [(layers + 1), n]: row l patches the stream entering layer l, the last row the final stream
                       ///< (All, Positions; else empty)
  MatD headPositions;  ///< [layers·heads, n]: row l·heads + h patches head h of layer l at one position (HeadPositions)
  double cleanDiff = 0.0, corruptDiff = 0.0;
  int firstDifference = 0;  ///< the first position at which the two texts' tokens differ
  long long runs = 0;       ///< patched runs computed (the others copy equal values: effect 0)
  long long skipped = 0;    ///< patched runs not needed for that reason
  /// Non-empty when |clean − corrupt| < kMinPatchingSpan: the effects are not to be trusted.
  std::string warning;
};
/// The patched runs of the corrupted text (Model::lastRowsWith, one batch per layer), reporting progress by their
/// estimated cost (rows × layers each run computes, so a fraction of the time) and honouring cancel through
/// `control`. Throws InputError (different token lengths, no unembedding, clean and corrupt giving the very same
/// difference) and Cancelled.
PatchingResult activationPatching(const Model& model, const TokenizedText& clean, const TokenizedText& corrupt,
                                  int target, int versus, const RunControl& control, const PatchingOptions& options);
/// The same with `residual` choosing All (true) or Heads (false) and no ablation.
PatchingResult activationPatching(const Model& model, const TokenizedText& clean, const TokenizedText& corrupt,
                                  int target, int versus, const RunControl& control = {}, bool residual = true);

}  // namespace attnlab
