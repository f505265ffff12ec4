#include "core/model/resumed_runs.h"

#include <algorithm>
#include <utility>

#include "core/base/errors.h"
#include "core/model/decode_session.h"

namespace attnlab {
namespace {

struct Run {
  std::size_t index = 0;  ///< into ivs and the result
  int layer = 0;          ///< the first layer it changes
  int first = 0;          ///< r₀: the first row it changes
  Mat x;                  ///< rows [first, n) of the stream entering the current layer; after the last: kept rows
};

/// One layer's cache for a run: base's keys and values of rows < first, then the run's own rows k, v.
KvCache cacheOf(const Trace& base, int layer, int first, const Mat& k, const Mat& v) {
  const LayerTrace& lt = base.layers[layer];
  const int kvHeads = base.kvHeadCount(), group = base.headCount() / kvHeads;
  const Eigen::Index dh = lt.heads[0].k().cols();
  Mat k0(first, kvHeads * dh), v0(first, kvHeads * dh);  // query head g·group reads kv head g and keeps it
  for (int g = 0; g < kvHeads; ++g) {
    k0.middleCols(g * dh, dh) = lt.heads[g * group].k().topRows(first);
    v0.middleCols(g * dh, dh) = lt.heads[g * group].v().topRows(first);
  }
  KvCache c;
  c.append(k0, v0);
  c.append(k, v);
  return c;
}

/// Whether a run computes layer l's attention: not at its first layer, where its stream is base's (unless a
/// residual patch enters there), so base's heads' outputs are its own before the intervention.
bool attends(const Run& run, const Intervention& iv, int l) { return run.layer != l || iv.residualLayer == l; }

/// One layer for the stacked runs that have started; in the last layer each run keeps only the rows of `keep`
/// (ascending) at or after its first changed row.
void stepLayer(const ResumableLayers& model, const Trace& base, const std::vector<Intervention>& ivs, int l,
               const std::vector<Run*>& active, const std::vector<int>& keep) {
  const int n = base.tokenCount(), heads = base.headCount(), kv = base.kvHeadCount(),
            runs = static_cast<int>(active.size());
  const bool last = l == base.layerCount() - 1;
  const Eigen::Index dh = base.layers[l].headWidth(), qw = heads * dh, kvw = kv * dh, d = base.embeddings.cols();
  // Q | K | V of the runs that attend, stacked: [Σ (n − r₀), (H + 2·H_kv)·d_head].
  std::vector<Eigen::Index> qkvAt(static_cast<std::size_t>(runs), -1);
  Eigen::Index qkvRows = 0;
  for (int r = 0; r < runs; ++r)
    if (attends(*active[r], ivs[active[r]->index], l)) qkvAt[r] = std::exchange(qkvRows, qkvRows + active[r]->x.rows());
  Mat qkv;
  if (qkvRows > 0) {
    Mat x(qkvRows, d);
    for (int r = 0; r < runs; ++r)
      if (qkvAt[r] >= 0) x.middleRows(qkvAt[r], active[r]->x.rows()) = active[r]->x;
    qkv = model.queryKeyValue(l, x);
  }
  // The rows each run passes through the rest of the layer (its rows' offsets in run.x): all of them, or in the
  // last layer those it keeps.
  std::vector<std::vector<Eigen::Index>> pass(static_cast<std::size_t>(runs));
  std::vector<Eigen::Index> at(runs + 1, 0);  // run r's rows in the stack: [at[r], at[r + 1])
  for (int r = 0; r < runs; ++r) {
    const Run& run = *active[r];
    for (Eigen::Index i = 0; i < run.x.rows(); ++i)
      if (!last || std::binary_search(keep.begin(), keep.end(), static_cast<int>(run.first + i))) pass[r].push_back(i);
    at[r + 1] = at[r] + static_cast<Eigen::Index>(pass[r].size());
  }
  const HeadOptions o = model.headOptions(l);
  Mat concat(at[runs], qw), stream(at[runs], d);
  // Attention per run: a few rows each, so the runs (not the products inside) share the threads.
#pragma omp parallel for schedule(dynamic)
  for (int r = 0; r < runs; ++r) {
    const Run& run = *active[r];
    const Intervention& iv = ivs[run.index];
    const Eigen::Index m = run.x.rows();
    Mat c;
    if (qkvAt[r] >= 0) {
      Mat q = qkv.block(qkvAt[r], 0, m, qw), k = qkv.block(qkvAt[r], qw, m, kvw);
      model.placeRows(l, run.first, n, q, k);
      const KvCache cache = cacheOf(base, l, run.first, k, qkv.block(qkvAt[r], qw + kvw, m, kvw));
      c = attendCached(q, cache, heads, kv, static_cast<int>(dh), o);
    } else {
      c = base.layers[l].concat.bottomRows(m);
    }
    if (run.first == 0)
      interveneOnConcat(iv, l, heads, static_cast<int>(dh), c);  // every row: a mean ablation's mean is right
    else  // rows from r₀ on: only row-wise ablations (ablatedInBase) and patches get here
      interveneOnConcatRows(iv, l, heads, static_cast<int>(dh), run.first, c);
    const auto kept = static_cast<Eigen::Index>(pass[r].size());
    if (kept == m) {  // every row (all layers but the last): block copies, not strided rows
      concat.middleRows(at[r], m) = c;
      stream.middleRows(at[r], m) = run.x;
    } else {
      for (Eigen::Index j = 0; j < kept; ++j) {
        concat.row(at[r] + j) = c.row(pass[r][static_cast<std::size_t>(j)]);
        stream.row(at[r] + j) = run.x.row(pass[r][static_cast<std::size_t>(j)]);
      }
    }
  }
  const Mat y = model.finishLayer(l, stream, concat);
  for (int r = 0; r < runs; ++r) active[r]->x = y.middleRows(at[r], at[r + 1] - at[r]);
}

}  // namespace

int firstTouchedLayer(const Intervention& iv, int layers) {
  int first = iv.residualLayer >= 0 ? std::min(iv.residualLayer, layers) : -1;
  for (const std::vector<HeadRef>* list : {&iv.patchHeads, &iv.ablate}) {
    if (list == &iv.ablate && iv.ablatedInBase) continue;  // base already has them
    for (const HeadRef& h : *list) first = first < 0 ? h.layer : std::min(first, h.layer);
  }
  return first;
}

int firstChangedRow(const Intervention& iv, const Trace& base) {
  const int n = base.tokenCount();
  if (iv.empty() || (iv.ablatedInBase && iv.patchHeads.empty() && iv.residualLayer < 0)) return n;
  if (!base.causal) return 0;
  if (!iv.ablate.empty()) {
    if (!iv.ablatedInBase) return 0;  // an ablation changes every row of base
    // Base has the ablations: row-wise ones change no row the patch leaves alone; a mean ablation does (its mean
    // covers every row) when it is in or after the first patched layer.
    const int patched = firstTouchedLayer(iv, base.layerCount());
    if (!iv.ablationIsRowwise())
      for (const HeadRef& h : iv.ablate)
        if (h.layer >= patched) return 0;
  }
  int first = iv.residualLayer >= 0 ? iv.residualPosition : n;
  for (const HeadRef& h : iv.patchHeads) {
    const auto from = iv.source->layers[h.layer].headOutput(h.head);  // [n, d_head]
    const auto own = base.layers[h.layer].headOutput(h.head);
    if (iv.patchPosition >= 0) {  // one row: it changes from there, or nothing when it is equal
      if (iv.patchPosition < first && from.row(iv.patchPosition) != own.row(iv.patchPosition)) first = iv.patchPosition;
      continue;
    }
    int r = 0;
    while (r < first && from.row(r) == own.row(r)) ++r;
    first = r;
  }
  return first;
}

std::vector<Mat> resumedRows(const ResumableLayers& model, const Trace& base, const std::vector<Intervention>& ivs,
                             const std::vector<int>& keep) {
  const int layers = base.layerCount(), n = base.tokenCount();
  if (!std::is_sorted(keep.begin(), keep.end()) || std::adjacent_find(keep.begin(), keep.end()) != keep.end() ||
      (!keep.empty() && (keep.front() < 0 || keep.back() >= n)))
    throw InputError("resumed runs: the rows kept must be distinct positions of the text, in order");
  const Mat& final = base.layers.back().residualOut;
  Mat plain(static_cast<Eigen::Index>(keep.size()), final.cols());
  for (std::size_t k = 0; k < keep.size(); ++k) plain.row(static_cast<Eigen::Index>(k)) = final.row(keep[k]);
  std::vector<Mat> out(ivs.size(), plain);
  std::vector<Run> runs;
  for (std::size_t i = 0; i < ivs.size(); ++i) {
    const Intervention& iv = ivs[i];
    checkIntervention(iv, layers, base.headCount(), n);
    const int layer = firstTouchedLayer(iv, layers), first = firstChangedRow(iv, base);
    if (layer >= 0 && layer < layers && first < n) runs.push_back({i, layer, first, Mat()});
  }
  for (int l = 0; l < layers; ++l) {
    std::vector<Run*> active;
    for (Run& r : runs) {
      if (r.layer == l) r.x = base.layerInput(l).bottomRows(n - r.first);
      if (r.layer > l) continue;
      const Intervention& iv = ivs[r.index];
      if (iv.residualLayer == l)
        r.x.row(iv.residualPosition - r.first) = iv.source->layerInput(l).row(iv.residualPosition);
      active.push_back(&r);
    }
    if (!active.empty()) stepLayer(model, base, ivs, l, active, keep);
  }
  for (const Run& r : runs) {  // r.x: its kept rows at or after r₀, in order; those before are base's
    const auto from = std::lower_bound(keep.begin(), keep.end(), r.first) - keep.begin();
    out[r.index].bottomRows(static_cast<Eigen::Index>(keep.size()) - from) = r.x;
  }
  for (std::size_t i = 0; i < ivs.size(); ++i)  // a patch of the final stream replaces its row
    if (ivs[i].residualLayer == layers) {
      const auto k = std::lower_bound(keep.begin(), keep.end(), ivs[i].residualPosition) - keep.begin();
      if (k < static_cast<std::ptrdiff_t>(keep.size()) && keep[static_cast<std::size_t>(k)] == ivs[i].residualPosition)
        out[i].row(k) = ivs[i].source->layers.back().residualOut.row(ivs[i].residualPosition);
    }
  return out;
}

std::vector<Vec> resumedLastRows(const ResumableLayers& model, const Trace& base,
                                 const std::vector<Intervention>& ivs) {
  const std::vector<Mat> rows = resumedRows(model, base, ivs, {base.tokenCount() - 1});
  std::vector<Vec> out;
  out.reserve(rows.size());
  for (const Mat& r : rows) out.push_back(r.row(0).transpose());
  return out;
}

}  // namespace attnlab
