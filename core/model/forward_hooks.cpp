#include "core/model/forward_hooks.h"

#include <limits>

#include "core/model/attention_head.h"
#include "core/model/blocks.h"
#include "core/model/intervention.h"
#include "core/model/trace.h"

namespace attnlab {

void hookTracedResidual(const Intervention& iv, int layer, Trace& trace, Mat& stream) {
  if (!wantsHook(iv.hooks, HookSite::ResidPre, layer)) return;
  iv.hooks->call(HookSite::ResidPre, layer, stream);
  (layer == 0 ? trace.embeddings : trace.layers[static_cast<std::size_t>(layer - 1)].residualOut) = stream;
}

void runAttentionHooks(const ForwardHooks* hooks, int layer, std::vector<HeadTrace>& heads, Mat& concat) {
  if (!hooks) return;
  const bool scores = hooks->wants(HookSite::Scores, layer), pattern = hooks->wants(HookSite::Pattern, layer);
  if (!scores && !pattern) return;
  const std::size_t count = heads.size();
  const Eigen::Index dh = concat.cols() / static_cast<Eigen::Index>(count);
  std::vector<Mat> s(count), a(count);  // [n, n] each
  for (std::size_t h = 0; h < count; ++h) {
    const HeadTrace& head = heads[h];
    if (head.keepsMaps() && head.attention.size() > 0) {
      s[h] = head.scores;
      a[h] = head.attention;
    } else {
      explicitMaps(head.q, head.k(), head.options, s[h], a[h]);  // a long input: made for the hook only
    }
  }
  if (scores) {
    for (std::size_t h = 0; h < count; ++h) {  // masked as TransformerLens's hook_attn_scores
      const long n = static_cast<long>(s[h].rows());
      for (long i = 0; i < n; ++i) {
        long first = 0, end = n;
        visibleKeys(heads[h].options, i, n, first, end);
        s[h].row(i).head(first).setConstant(-std::numeric_limits<float>::infinity());
        s[h].row(i).tail(n - end).setConstant(-std::numeric_limits<float>::infinity());
      }
    }
    hooks->callMaps(HookSite::Scores, layer, s);
    for (std::size_t h = 0; h < count; ++h) {
      a[h] = s[h];
      softmaxRowsInPlace(a[h]);
    }
  }
  if (pattern) hooks->callMaps(HookSite::Pattern, layer, a);
  for (std::size_t h = 0; h < count; ++h) {
    HeadTrace& head = heads[h];
    concat.middleCols(static_cast<Eigen::Index>(h) * dh, dh).noalias() = a[h] * head.v();
    if (head.attention.size() > 0) {
      head.scores = std::move(s[h]);
      head.attention = std::move(a[h]);
    }
  }
}

}  // namespace attnlab
