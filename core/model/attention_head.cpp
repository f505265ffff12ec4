#include "core/model/attention_head.h"

#include <cmath>
#include <limits>

#include "core/base/contention.h"
#include "core/base/parallel_jobs.h"
#include "core/model/blocks.h"
#include "core/model/head_maps.h"

namespace attnlab {

HeadTrace attendHead(Mat q, SharedMat k, SharedMat v, float scale, bool causal, Eigen::Ref<Mat> out) {
  HeadOptions o;
  o.scale = scale;
  o.causal = causal;
  return attendHead(std::move(q), std::move(k), std::move(v), o, out);
}

void explicitMaps(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k, const HeadOptions& o, Mat& scores,
                  Mat& attention) {
  scores.noalias() = (q * k.transpose()) * o.scale;  // [n, n]
  if (o.softcap > 0.0f) {
    const float c = o.softcap;
    scores = scores.unaryExpr([c](float s) { return std::tanh(s / c) * c; });
  }
  attention = scores;
  if (o.causal) applyCausalMask(attention);
  if (o.window > 0) {
    const Eigen::Index n = attention.rows();
    for (Eigen::Index i = o.window; i < n; ++i)  // keys j ≤ i − W are out of the window
      attention.row(i).head(i - o.window + 1).setConstant(-std::numeric_limits<float>::infinity());
  }
  softmaxRowsInPlace(attention);
}

HeadTrace attendHead(Mat q, SharedMat k, SharedMat v, const HeadOptions& o, Eigen::Ref<Mat> out) {
  HeadTrace h;
  explicitMaps(q, *k, o, h.scores, h.attention);
  out.noalias() = h.attention * *v;  // [n, d_head]
  h.q = std::move(q);
  h.keys = std::move(k);
  h.values = std::move(v);
  h.options = o;  // no summary: the views read a kept map itself (summarizeMap makes one; 8 % of a 64-token pass)
  return h;
}

namespace {

/// Softmax of one query's visible scores s (contiguous, in place → weights); returns the row's entropy
/// −Σ a ln a = lse − Σ a·s with lse = max + ln Σ exp(s − max): no logarithm per weight.
double softmaxWithEntropy(Eigen::Ref<Eigen::VectorXf> s) {
  thread_local Eigen::VectorXf e;  // exp(s − max), reused row after row
  const float mx = s.maxCoeff();
  e = (s.array() - mx).exp();
  const double sum = e.sum();
  const double dot = e.dot(s);  // Σ exp(s − max)·s
  s = e * static_cast<float>(1.0 / sum);
  return mx + std::log(sum) - dot / sum;
}

}  // namespace

HeadTrace attendHeadTiled(Mat q, SharedMat keys, SharedMat values, const HeadOptions& o, Eigen::Ref<Mat> out,
                          Eigen::Index knownRows, const HeadSummary* knownSummary) {
  const Eigen::Index n = q.rows();
  const Mat &k = *keys, &v = *values;
  HeadTrace h;
  h.options = o;
  HeadSummaryBuilder summary(static_cast<int>(n));
  // Rows before `resumed` are in the bands taken from the earlier pass and their out rows are known (resumed ≤
  // knownRows). An edit of a text of the same length starts at the tile holding `resumed`: tiles start at multiples
  // of kTileRows as in a full pass, so every number is the same, bit for bit. A text with more tokens than the
  // summary's (typed at the end, or any edit that adds tokens: the token count alone decides) starts at `resumed`
  // itself (the first tile runs to the next multiple of kTileRows): one token typed attends one row per head, not the
  // up to 63 before it in its tile — the product's kernels then round those rows' scores differently (to float
  // rounding). Without a summary to take from, tiles start at 0 and those wholly before knownRows only add to the
  // summary.
  const Eigen::Index resumed =
      knownSummary && knownRows > 0 ? summary.resume(*knownSummary, static_cast<int>(knownRows)) : 0;
  const bool grown = knownSummary && knownSummary->tokens < n;
  Mat st;  // one tile's scores, transposed so that each query is a contiguous column: [keys, rows]
  for (Eigen::Index r0 = grown ? resumed : resumed / kTileRows * kTileRows; r0 < n;
       r0 = (r0 / kTileRows + 1) * kTileRows) {
    const Eigen::Index m = std::min<Eigen::Index>((r0 / kTileRows + 1) * kTileRows, n) - r0;
    long first = 0, lastEnd = 0;
    visibleKeysOfRows(o, static_cast<long>(r0), static_cast<long>(m), static_cast<long>(n), first, lastEnd);
    const Eigen::Index keys = lastEnd - first;  // the union of the tile's visible keys
    st.noalias() = (k.middleRows(first, keys) * q.middleRows(r0, m).transpose()) * o.scale;
    if (o.softcap > 0.0f) {
      const float c = o.softcap;
      st = st.unaryExpr([c](float s) { return std::tanh(s / c) * c; });
    }
    for (Eigen::Index c = 0; c < m; ++c) {
      long f = 0, e = 0;
      visibleKeys(o, r0 + c, n, f, e);
      auto col = st.col(c);
      col.head(f - first).setZero();
      col.segment(e - first, keys - (e - first)).setZero();
      const double entropy = softmaxWithEntropy(col.segment(f - first, e - f));
      if (r0 + c >= resumed)
        summary.addRow(static_cast<int>(r0 + c), col.data() + (f - first), static_cast<int>(f), static_cast<int>(e - f),
                       entropy);
    }
    if (r0 + m > knownRows)  // rows inside knownRows are out's already
      out.middleRows(r0, m).noalias() = st.transpose() * v.middleRows(first, keys);  // [m, d_head]
  }
  h.summary = summary.finish();
  h.q = std::move(q);
  h.keys = std::move(keys);
  h.values = std::move(values);
  return h;
}

std::vector<HeadTrace> attendGroupedHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                          const Eigen::Ref<const Mat>& v, int heads, int kvHeads, int dHead,
                                          const HeadOptions& o, Mat& concat, bool keepMaps, const LayerTrace* known,
                                          int knownRows) {
  const Eigen::Index n = q.rows();
  const int group = heads / kvHeads;
  std::vector<HeadTrace> out(static_cast<std::size_t>(heads));
  concat.resize(n, static_cast<Eigen::Index>(heads) * dHead);
  // An edit: rows before knownRows of every head's output are the last run's (attendHeadTiled keeps them).
  if (known && knownRows > 0) concat.topRows(knownRows) = known->concat.topRows(knownRows);
  std::vector<SharedMat> keys(static_cast<std::size_t>(kvHeads)), values(keys.size());  // one copy per kv head
  for (int g = 0; g < kvHeads; ++g) {
    keys[static_cast<std::size_t>(g)] = shareMat(k.middleCols(static_cast<Eigen::Index>(g) * dHead, dHead));
    values[static_cast<std::size_t>(g)] = shareMat(v.middleCols(static_cast<Eigen::Index>(g) * dHead, dHead));
  }
  const double madds = 2.0 * static_cast<double>(heads) * static_cast<double>(n) * static_cast<double>(n) * dHead;
  const auto head = [&](int h) {
    const Eigen::Index c0 = static_cast<Eigen::Index>(h) * dHead;
    const std::size_t g = static_cast<std::size_t>(h / group);
    auto cols = concat.middleCols(c0, dHead);  // [n, d_head]
    out[static_cast<std::size_t>(h)] =
        keepMaps ? attendHead(q.middleCols(c0, dHead), keys[g], values[g], o, cols)
                 : attendHeadTiled(q.middleCols(c0, dHead), keys[g], values[g], o, cols, known ? knownRows : 0,
                                   known && h < static_cast<int>(known->heads.size())
                                       ? &known->heads[static_cast<std::size_t>(h)].summary
                                       : nullptr);
  };
  maybeParallelJobs(madds >= kParallelHeadMadds && availableThreads() > 1, heads, {}, head);
  return out;
}

std::vector<HeadTrace> attendHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                   const Eigen::Ref<const Mat>& v, int heads, int dHead, float scale, bool causal,
                                   Mat& concat, bool keepMaps, const LayerTrace* known, int knownRows) {
  HeadOptions o;
  o.scale = scale;
  o.causal = causal;
  return attendGroupedHeads(q, k, v, heads, heads, dHead, o, concat, keepMaps, known, knownRows);
}

}  // namespace attnlab
