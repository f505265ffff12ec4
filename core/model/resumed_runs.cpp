#include "core/model/resumed_runs.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/model/decode_session.h"

namespace attnlab {
namespace {

struct Run {
  std::size_t index = 0;  ///< into ivs and the result
  int layer = 0;          ///< the first layer it changes
  int first = 0;          ///< r₀: the first row it changes
  Mat x;                  ///< rows [first, n) of the stream entering the current layer
};

/// One layer's cache for a run: base's keys and values of rows < first, then the run's own rows k, v.
KvCache cacheOf(const Trace& base, int layer, int first, const Mat& k, const Mat& v) {
  const LayerTrace& lt = base.layers[layer];
  const int kvHeads = base.kvHeadCount(), group = base.headCount() / kvHeads;
  const Eigen::Index dh = lt.heads[0].k.cols();
  Mat k0(first, kvHeads * dh), v0(first, kvHeads * dh);  // query head g·group reads kv head g and keeps it
  for (int g = 0; g < kvHeads; ++g) {
    k0.middleCols(g * dh, dh) = lt.heads[g * group].k.topRows(first);
    v0.middleCols(g * dh, dh) = lt.heads[g * group].v.topRows(first);
  }
  KvCache c;
  c.append(k0, v0);
  c.append(k, v);
  return c;
}

/// interveneOnHeads' patches for concat [m, H·d_head] holding rows from `row` on.
void patchHeadRows(const Intervention& iv, int layer, Eigen::Index dh, int row, Mat& concat) {
  for (const HeadRef& r : iv.patchHeads)
    if (r.layer == layer)
      concat.middleCols(r.head * dh, dh) = iv.source->layers[layer].heads[r.head].output.middleRows(row, concat.rows());
}

/// One layer for the stacked runs that have started; in the last layer each run keeps only its last row.
void stepLayer(const ResumableLayers& model, const Trace& base, const std::vector<Intervention>& ivs, int l,
               const std::vector<Run*>& active) {
  const int n = base.tokenCount(), heads = base.headCount(), kv = base.kvHeadCount(),
            runs = static_cast<int>(active.size());
  const bool last = l == base.layerCount() - 1;
  const Eigen::Index dh = base.layers[l].heads[0].output.cols(), qw = heads * dh, kvw = kv * dh;
  std::vector<Eigen::Index> at(runs + 1, 0);  // run r's rows in the stack: [at[r], at[r + 1])
  for (int r = 0; r < runs; ++r) at[r + 1] = at[r] + active[r]->x.rows();
  Mat x(at[runs], base.embeddings.cols());  // [Σ (n − r₀), d]
  for (int r = 0; r < runs; ++r) x.middleRows(at[r], active[r]->x.rows()) = active[r]->x;
  const Mat qkv = model.queryKeyValue(l, x);
  const HeadOptions o = model.headOptions(l);
  Mat concat(last ? runs : at[runs], qw), kept(last ? runs : 0, x.cols());
  // Attention per run: a few rows each, so the runs (not the products inside) share the threads.
#pragma omp parallel for schedule(dynamic)
  for (int r = 0; r < runs; ++r) {
    const Run& run = *active[r];
    const Eigen::Index m = run.x.rows();
    Mat q = qkv.block(at[r], 0, m, qw), k = qkv.block(at[r], qw, m, kvw);
    model.placeRows(l, run.first, n, q, k);
    const KvCache cache = cacheOf(base, l, run.first, k, qkv.block(at[r], qw + kvw, m, kvw));
    const Mat queries = last ? Mat(q.bottomRows(1)) : q;  // the last layer: only the last position matters
    Mat c = attendCached(queries, cache, heads, kv, static_cast<int>(dh), o);
    patchHeadRows(ivs[run.index], l, dh, n - static_cast<int>(c.rows()), c);
    if (last) {
      concat.row(r) = c;
      kept.row(r) = run.x.bottomRows(1);
    } else {
      concat.middleRows(at[r], m) = c;
    }
  }
  const Mat y = model.finishLayer(l, last ? kept : x, concat);
  for (int r = 0; r < runs; ++r) active[r]->x = last ? Mat(y.row(r)) : Mat(y.middleRows(at[r], active[r]->x.rows()));
}

}  // namespace

int firstTouchedLayer(const Intervention& iv, int layers) {
  int first = iv.residualLayer >= 0 ? std::min(iv.residualLayer, layers) : -1;
  for (const std::vector<HeadRef>* list : {&iv.patchHeads, &iv.ablate})
    for (const HeadRef& h : *list) first = first < 0 ? h.layer : std::min(first, h.layer);
  return first;
}

int firstChangedRow(const Intervention& iv, const Trace& base) {
  const int n = base.tokenCount();
  if (iv.empty()) return n;
  if (!base.causal || !iv.ablate.empty()) return 0;
  int first = iv.residualLayer >= 0 ? iv.residualPosition : n;
  for (const HeadRef& h : iv.patchHeads) {
    const Mat& from = iv.source->layers[h.layer].heads[h.head].output;
    const Mat& own = base.layers[h.layer].heads[h.head].output;
    int r = 0;
    while (r < first && from.row(r) == own.row(r)) ++r;
    first = r;
  }
  return first;
}

std::vector<Vec> resumedLastRows(const ResumableLayers& model, const Trace& base,
                                 const std::vector<Intervention>& ivs) {
  const int layers = base.layerCount(), n = base.tokenCount();
  std::vector<Vec> out(ivs.size(), base.layers.back().residualOut.row(n - 1).transpose());
  std::vector<Run> runs;
  for (std::size_t i = 0; i < ivs.size(); ++i) {
    const Intervention& iv = ivs[i];
    if (!iv.ablate.empty()) throw InputError("resumed runs patch activations; they do not ablate heads");
    checkIntervention(iv, layers, base.headCount(), n);
    const int layer = firstTouchedLayer(iv, layers), first = firstChangedRow(iv, base);
    if (layer >= 0 && layer < layers && first < n) runs.push_back({i, layer, first, Mat()});
  }
  for (int l = 0; l < layers; ++l) {
    std::vector<Run*> active;
    for (Run& r : runs) {
      if (r.layer == l) r.x = base.layers[l].residualIn.bottomRows(n - r.first);
      if (r.layer > l) continue;
      const Intervention& iv = ivs[r.index];
      if (iv.residualLayer == l)
        r.x.row(iv.residualPosition - r.first) = iv.source->layers[l].residualIn.row(iv.residualPosition);
      active.push_back(&r);
    }
    if (!active.empty()) stepLayer(model, base, ivs, l, active);
  }
  for (const Run& r : runs) out[r.index] = r.x.bottomRows(1).transpose();
  for (std::size_t i = 0; i < ivs.size(); ++i)  // a patch of the final stream's last row replaces it
    if (ivs[i].residualLayer == layers && ivs[i].residualPosition == n - 1)
      out[i] = ivs[i].source->layers.back().residualOut.row(n - 1).transpose();
  return out;
}

}  // namespace attnlab
