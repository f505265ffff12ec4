#pragma once
// Callback points inside a forward pass (issue 34: TransformerLens's run_with_hooks from Python). Every family's
// forward (GPT-2, BERT, the decoders, the trained tiny models, the built-in transformer) offers its activations at
// the same sites, in the order they are computed; a callee may read them and change them in place, and the pass
// continues from the changed values. A pass without hooks (Intervention::hooks null, the default) pays one pointer
// test per site.
//
// Shapes (n tokens, rows = positions; every matrix column-major as the forward keeps it):
//   Embed      W_E rows of the ids [n, d] (before the decoders' embedding scale)   layer −1
//   PosEmbed   the position rows added to them (GPT-2, tiny models) [n, d]           layer −1
//   ResidPre   the stream entering layer l [n, d]
//   Q          queries [n, H·d_head], head h in columns h·d_head … (after RoPE in rotary models)
//   K, V       keys, values [n, H_kv·d_head] (the key/value heads of grouped-query attention)
//   Scores     per head [n, n]: scaled (soft-capped) scores, −∞ where the query does not see the key; the pattern
//              is then softmax of each row of what the hook leaves
//   Pattern    per head [n, n]: softmax rows; the head's output is then pattern·V
//   Z          the heads' outputs side by side [n, H·d_head] (after ablations and patches)
//   AttnOut    what attention adds to the stream [n, d]
//   ResidMid   the stream between attention and MLP [n, d]
//   MlpOut     what the MLP adds [n, d] (layers with an MLP)
//   ResidPost  the layer's output [n, d] (what the next layer reads)
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

struct HeadTrace;
struct Intervention;
struct Trace;

enum class HookSite { Embed, PosEmbed, ResidPre, Q, K, V, Scores, Pattern, Z, AttnOut, ResidMid, MlpOut, ResidPost };

class ForwardHooks {
 public:
  virtual ~ForwardHooks() = default;
  /// Whether `site` of `layer` has a hook; the forward asks at every site it computes and calls only those.
  virtual bool wants(HookSite site, int layer) const = 0;
  /// The activation `m` of a matrix site, to read or change in place (a hook may throw: the pass stops).
  virtual void call(HookSite site, int layer, Eigen::Ref<Mat> m) const = 0;
  /// Scores or Pattern: one [n, n] map per query head.
  virtual void callMaps(HookSite site, int layer, std::vector<Mat>& maps) const = 0;
};

/// Calls the hook of `site` of `layer` on `m` when there is one.
inline void runHook(const ForwardHooks* hooks, HookSite site, int layer, Eigen::Ref<Mat> m) {
  if (hooks && hooks->wants(site, layer)) hooks->call(site, layer, m);
}
inline bool wantsHook(const ForwardHooks* hooks, HookSite site, int layer) {
  return hooks && hooks->wants(site, layer);
}

/// The ResidPre hook of `layer` on the stream it reads, recorded in the trace as the stream that layer read (its
/// embeddings or the previous layer's output), as interveneOnTracedResidual records a residual patch.
void hookTracedResidual(const Intervention& iv, int layer, Trace& trace, Mat& stream);

/// The Scores and Pattern hooks of `layer` on heads made with their options (their maps kept or not): calls them
/// and, when either exists, recomputes each head's output A·V into concat [n, H·d_head] (head h in columns
/// h·d_head …) and the maps the heads keep. Nothing when neither site has a hook.
void runAttentionHooks(const ForwardHooks* hooks, int layer, std::vector<HeadTrace>& heads, Mat& concat);

}  // namespace attnlab
