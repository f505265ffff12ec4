#pragma once
// Everything a forward pass computed, kept for the views and the analyses.
// Shapes: n tokens, d = d_model, d_head per head.
#include <string>
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

struct HeadTrace {
  Mat q, k, v;    ///< [n, d_head]
  Mat scores;     ///< Q·Kᵀ·scale before any mask  [n, n]
  Mat attention;  ///< softmax rows (masked entries exactly 0)  [n, n]; rows = queries
  Mat output;     ///< attention·V  [n, d_head]
};

struct LayerTrace {
  Mat residualIn;  ///< the layer's input  [n, d]
  std::vector<HeadTrace> heads;
  Mat concat;        ///< heads' outputs side by side  [n, d]
  Mat attentionOut;  ///< what attention adds to the residual: concat·Wo (+ b), after Gemma 2/3's post-norm  [n, d]
  Mat mlpOut;        ///< what the MLP adds to the residual (after Gemma 2/3's post-norm); empty without one  [n, d]
  Mat residualOut;   ///< the layer's output  [n, d]
};

/// Throws InputError when keeping the scores and attention of every head (2·layers·heads·n² floats)
/// would exceed the trace budget (2 GiB): a clear message instead of swapping or an allocation failure.
void checkTraceMemory(long long tokens, long long layers, long long heads);

struct Trace {
  std::vector<std::string> tokens;  ///< display strings, one per row
  std::vector<int> tokenIds;        ///< vocabulary ids where the model has a vocabulary, else empty
  Mat embeddings;                   ///< input to layer 0  [n, d]
  std::vector<LayerTrace> layers;
  bool causal = false;
  /// Key/value heads of grouped-query attention (0 = one per query head). Query head h then reads kv head
  /// h / (heads / kvHeads); each HeadTrace still holds its K and V, shared within the group.
  int kvHeads = 0;

  int tokenCount() const { return static_cast<int>(tokens.size()); }
  int layerCount() const { return static_cast<int>(layers.size()); }
  int headCount() const { return layers.empty() ? 0 : static_cast<int>(layers[0].heads.size()); }
  int kvHeadCount() const { return kvHeads > 0 ? kvHeads : headCount(); }
  /// The kv head query head h reads.
  int kvHeadOf(int h) const { return kvHeads > 0 ? h / (headCount() / kvHeads) : h; }
};

}  // namespace attnlab
