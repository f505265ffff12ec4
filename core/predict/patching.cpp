#include "core/predict/patching.h"

#include "core/base/errors.h"
#include "core/predict/attribution.h"
#include "core/predict/run_comparison.h"

namespace attnlab {

AblationEffect ablationEffect(const Model& model, const TokenizedText& text, const Trace& clean, const Intervention& iv,
                              int position, int target, double temperature) {
  const Unembedding& u = requireUnembedding(model);
  checkIntervention(iv, clean.layerCount(), clean.headCount(), clean.tokenCount());
  AblationEffect e;
  e.position = resolvePosition(position, clean.tokenCount());
  e.ablated = model.forward(text, {}, iv);
  const RunComparison c = compareRuns(u, clean, e.ablated, e.position, target, temperature);
  e.target = c.target;
  e.cleanProb = c.plainProb;
  e.ablatedProb = c.changedProb;
  e.kl = c.kl;
  e.ablatedLogits = c.changedLogits;
  return e;
}

PatchingResult activationPatching(const Model& model, const TokenizedText& clean, const TokenizedText& corrupt,
                                  int target, int versus, const RunControl& control, bool residual) {
  const Unembedding& u = requireUnembedding(model);
  if (clean.tokens.size() != corrupt.tokens.size())
    throw InputError("the clean and corrupted texts must have the same number of tokens (" +
                     std::to_string(clean.tokens.size()) + " and " + std::to_string(corrupt.tokens.size()) + ")");
  RunControl cancelOnly;  // the two plain runs report no progress of their own
  cancelOnly.cancel = control.cancel;
  const Trace cleanRun = model.forward(clean, cancelOnly);
  const Trace corruptRun = model.forward(corrupt, cancelOnly);
  const int layers = cleanRun.layerCount(), heads = cleanRun.headCount(), n = cleanRun.tokenCount();
  auto diffOf = [&](const Trace& t) {
    return logitDifference(u, t.layers.back().residualOut.row(n - 1).transpose(), target, versus);
  };
  PatchingResult r;
  r.cleanDiff = diffOf(cleanRun);
  r.corruptDiff = diffOf(corruptRun);
  const double span = r.cleanDiff - r.corruptDiff;
  const double total = layers * heads + (residual ? (layers + 1.0) * n : 0.0);
  double done = 0.0;
  // One batch per layer: the model resumes every run from the corrupted one (Model::lastRowsWith), so the
  // batch costs what its patches change; progress and cancel come between batches.
  auto effects = [&](const std::vector<Intervention>& ivs) {
    control.checkpoint(done / total);
    done += static_cast<double>(ivs.size());
    VecD e(static_cast<Eigen::Index>(ivs.size()));
    const std::vector<Vec> rows = model.lastRowsWith(corrupt, corruptRun, ivs);
    for (std::size_t i = 0; i < rows.size(); ++i)
      e(static_cast<Eigen::Index>(i)) = (logitDifference(u, rows[i], target, versus) - r.corruptDiff) / span;
    return e;
  };
  Intervention patch;
  patch.source = &cleanRun;
  r.heads.resize(layers, heads);
  for (int l = 0; l < layers; ++l) {
    std::vector<Intervention> ivs(static_cast<std::size_t>(heads), patch);
    for (int h = 0; h < heads; ++h) ivs[h].patchHeads = {{l, h}};
    r.heads.row(l) = effects(ivs).transpose();
  }
  if (residual) {
    r.resid.resize(layers + 1, n);
    for (int l = 0; l <= layers; ++l) {
      std::vector<Intervention> ivs(static_cast<std::size_t>(n), patch);
      for (int i = 0; i < n; ++i) {
        ivs[i].residualLayer = l;
        ivs[i].residualPosition = i;
      }
      r.resid.row(l) = effects(ivs).transpose();
    }
  }
  control.checkpoint(1.0);
  return r;
}

}  // namespace attnlab
