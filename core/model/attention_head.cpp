#include "core/model/attention_head.h"

#include <omp.h>

#include <cmath>
#include <limits>

#include "core/base/parallel_jobs.h"
#include "core/model/blocks.h"

namespace attnlab {

HeadTrace attendHead(Mat q, Mat k, Mat v, float scale, bool causal) {
  HeadOptions o;
  o.scale = scale;
  o.causal = causal;
  return attendHead(std::move(q), std::move(k), std::move(v), o);
}

HeadTrace attendHead(Mat q, Mat k, Mat v, const HeadOptions& o) {
  HeadTrace h;
  h.scores.noalias() = (q * k.transpose()) * o.scale;  // [n, n]
  if (o.softcap > 0.0f) {
    const float c = o.softcap;
    h.scores = h.scores.unaryExpr([c](float s) { return std::tanh(s / c) * c; });
  }
  h.attention = h.scores;
  if (o.causal) applyCausalMask(h.attention);
  if (o.window > 0) {
    const Eigen::Index n = h.attention.rows();
    for (Eigen::Index i = o.window; i < n; ++i)  // keys j ≤ i − W are out of the window
      h.attention.row(i).head(i - o.window + 1).setConstant(-std::numeric_limits<float>::infinity());
  }
  softmaxRowsInPlace(h.attention);
  h.output.noalias() = h.attention * v;  // [n, d_head]
  h.q = std::move(q);
  h.k = std::move(k);
  h.v = std::move(v);
  return h;
}

std::vector<HeadTrace> attendGroupedHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                          const Eigen::Ref<const Mat>& v, int heads, int kvHeads, int dHead,
                                          const HeadOptions& o, Mat& concat) {
  const Eigen::Index n = q.rows();
  const int group = heads / kvHeads;
  std::vector<HeadTrace> out(static_cast<std::size_t>(heads));
  concat.resize(n, static_cast<Eigen::Index>(heads) * dHead);
  const double madds = 2.0 * static_cast<double>(heads) * static_cast<double>(n) * static_cast<double>(n) * dHead;
  const auto head = [&](int h) {
    const Eigen::Index c0 = static_cast<Eigen::Index>(h) * dHead;
    const Eigen::Index kv0 = static_cast<Eigen::Index>(h / group) * dHead;
    HeadTrace& t = out[static_cast<std::size_t>(h)];
    t = attendHead(q.middleCols(c0, dHead), k.middleCols(kv0, dHead), v.middleCols(kv0, dHead), o);
    concat.middleCols(c0, dHead) = t.output;
  };
  maybeParallelJobs(madds >= kParallelHeadMadds && omp_get_max_threads() > 1, heads, {}, head);
  return out;
}

std::vector<HeadTrace> attendHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                   const Eigen::Ref<const Mat>& v, int heads, int dHead, float scale, bool causal,
                                   Mat& concat) {
  HeadOptions o;
  o.scale = scale;
  o.causal = causal;
  return attendGroupedHeads(q, k, v, heads, heads, dHead, o, concat);
}

}  // namespace attnlab
