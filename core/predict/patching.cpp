#include "core/predict/patching.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

const char* patchMapName(PatchMap map) {
  switch (map) {
    case PatchMap::Heads:
      return "heads";
    case PatchMap::Positions:
      return "positions";
    case PatchMap::HeadPositions:
      return "head-position";
    default:
      return "all";
  }
}

PatchMap parsePatchMap(const std::string& name, const std::string& what) {
  for (PatchMap m : {PatchMap::All, PatchMap::Heads, PatchMap::Positions, PatchMap::HeadPositions})
    if (name == patchMapName(m)) return m;
  throw InputError(what + " must be all, heads, positions or head-position, got '" + name + "'");
}

namespace {

/// One patched run: where its effect goes, and its estimated cost (rows × layers it recomputes).
struct Job {
  Intervention iv;
  double* cell = nullptr;
  double rows = 0.0;  ///< rows it stacks in each layer it recomputes
  double cost = 0.0;  ///< rows × those layers
};

/// The first row at which two [n, w] blocks differ (n when they are equal).
template <typename A, typename B>
int firstDifferentRow(const A& a, const B& b) {
  int r = 0;
  while (r < a.rows() && a.row(r) == b.row(r)) ++r;
  return r;
}

/// Stacked rows per batch: the runs of a layer share every weight matrix's pass, but head × position patching of a
/// long text would stack heads·n²/2 rows (1,024 tokens, 12 heads: 6 M rows of d floats).
constexpr double kBatchRows = 16384.0;

}  // namespace

PatchingResult activationPatching(const Model& model, const TokenizedText& clean, const TokenizedText& corrupt,
                                  int target, int versus, const RunControl& control, bool residual) {
  PatchingOptions o;
  o.map = residual ? PatchMap::All : PatchMap::Heads;
  return activationPatching(model, clean, corrupt, target, versus, control, o);
}

PatchingResult activationPatching(const Model& model, const TokenizedText& clean, const TokenizedText& corrupt,
                                  int target, int versus, const RunControl& control, const PatchingOptions& options) {
  const Unembedding& u = requireUnembedding(model);
  if (clean.tokens.size() != corrupt.tokens.size())
    throw InputError("the clean and corrupted texts must have the same number of tokens (" +
                     std::to_string(clean.tokens.size()) + " and " + std::to_string(corrupt.tokens.size()) + ")");
  Intervention ablation = options.ablation;
  ablation.patchHeads.clear();
  ablation.residualLayer = ablation.residualPosition = ablation.patchPosition = -1;
  ablation.source = ablation.reuse = ablation.prefix = nullptr;
  ablation.ablatedInBase = false;
  RunControl cancelOnly;  // the two plain runs report no progress of their own
  cancelOnly.cancel = control.cancel;
  const Trace cleanRun = model.forward(clean, cancelOnly, ablation);
  const Trace corruptRun = model.forward(corrupt, cancelOnly, ablation);
  const int layers = cleanRun.layerCount(), heads = cleanRun.headCount(), n = cleanRun.tokenCount();
  auto diffOf = [&](const Trace& t) {
    return logitDifference(u, t.layers.back().residualOut.row(n - 1).transpose(), target, versus);
  };
  PatchingResult r;
  r.map = options.map;
  r.cleanDiff = diffOf(cleanRun);
  r.corruptDiff = diffOf(corruptRun);
  const double span = r.cleanDiff - r.corruptDiff;
  if (span == 0.0)
    throw InputError("clean and corrupt give the same logit difference (" + std::to_string(r.cleanDiff) +
                     "): there is nothing for a patch to restore");
  if (std::abs(span) < kMinPatchingSpan) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "clean - corrupt is only %.3g (below %g): the effects divide by it and mean little", span,
                  kMinPatchingSpan);
    r.warning = text;
  }
  r.firstDifference = 0;
  const std::size_t ids = std::min(clean.ids.size(), corrupt.ids.size());
  while (r.firstDifference < n && static_cast<std::size_t>(r.firstDifference) < ids &&
         clean.ids[static_cast<std::size_t>(r.firstDifference)] ==
             corrupt.ids[static_cast<std::size_t>(r.firstDifference)])
    ++r.firstDifference;

  Intervention patch = ablation;
  patch.source = &cleanRun;
  patch.ablatedInBase = !ablation.ablate.empty();
  const bool rowwise = ablation.ablate.empty() || ablation.ablationIsRowwise();
  // Rows a run recomputes from layer l on: from its first changed row, or all of them when a mean ablation at or
  // after l spreads any change to every row.
  auto rowsOf = [&](int l, int first) {
    bool everyRow = false;
    for (const HeadRef& h : ablation.ablate) everyRow = everyRow || (!rowwise && h.layer >= l);
    return static_cast<double>(everyRow ? n : n - first);
  };
  // The runs of each layer, in batches; a patch that copies equal values is left out (its cell stays 0).
  std::vector<std::vector<Job>> byLayer(static_cast<std::size_t>(layers + 1));
  auto add = [&](int l, Intervention iv, double* cell, int first) {
    *cell = 0.0;
    if (options.skipUnchanged && first >= n) {
      ++r.skipped;
      return;
    }
    const double rows = rowsOf(l, std::min(first, n - 1));
    byLayer[static_cast<std::size_t>(l)].push_back({std::move(iv), cell, rows, rows * (layers - l)});
  };
  if (options.map == PatchMap::All || options.map == PatchMap::Heads) r.heads.resize(layers, heads);
  if (options.map == PatchMap::All || options.map == PatchMap::Positions) r.resid.resize(layers + 1, n);
  if (options.map == PatchMap::HeadPositions) r.headPositions.resize(static_cast<Eigen::Index>(layers) * heads, n);
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const auto from = cleanRun.layers[l].headOutput(h), own = corruptRun.layers[l].headOutput(h);
      Intervention iv = patch;
      iv.patchHeads = {{l, h}};
      if (r.heads.size() > 0) add(l, iv, &r.heads(l, h), firstDifferentRow(from, own));
      for (int i = 0; i < n && r.headPositions.size() > 0; ++i) {
        iv.patchPosition = i;
        add(l, iv, &r.headPositions(static_cast<Eigen::Index>(l) * heads + h, i), from.row(i) == own.row(i) ? n : i);
      }
    }
  for (int l = 0; l <= layers && r.resid.size() > 0; ++l)
    for (int i = 0; i < n; ++i) {
      Intervention iv = patch;
      iv.residualLayer = l;
      iv.residualPosition = i;
      const bool equal = cleanRun.layerInput(l).row(i) == corruptRun.layerInput(l).row(i);
      // The final stream at another position than the last one reaches nothing read here.
      add(l, iv, &r.resid(l, i), equal || (l == layers && i != n - 1) ? n : i);
    }
  double total = 0.0, done = 0.0;
  for (const std::vector<Job>& jobs : byLayer)
    for (const Job& j : jobs) total += std::max(1.0, j.cost);
  for (const std::vector<Job>& jobs : byLayer) {
    // One batch per layer (the model resumes every run from the corrupted one at that layer, stacked:
    // Model::lastRowsWith), split at kBatchRows stacked rows; progress and cancel come between batches.
    for (std::size_t b = 0; b < jobs.size();) {
      std::size_t e = b;
      double rows = 0.0, cost = 0.0;
      while (e < jobs.size() && (e == b || rows + jobs[e].rows <= kBatchRows)) {
        rows += jobs[e].rows;
        cost += std::max(1.0, jobs[e].cost);
        ++e;
      }
      control.checkpoint(total > 0 ? done / total : 0.0);
      std::vector<Intervention> ivs;
      for (std::size_t k = b; k < e; ++k) ivs.push_back(jobs[k].iv);
      const std::vector<Vec> last = model.lastRowsWith(corrupt, corruptRun, ivs);
      for (std::size_t k = b; k < e; ++k)
        *jobs[k].cell = (logitDifference(u, last[k - b], target, versus) - r.corruptDiff) / span;
      r.runs += static_cast<long long>(e - b);
      done += cost;
      b = e;
    }
  }
  control.checkpoint(1.0);
  return r;
}

}  // namespace attnlab
