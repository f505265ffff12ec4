#pragma once
// Everything a forward pass computed, kept for the views and the analyses.
// Shapes: n tokens, d = d_model, d_head per head.
#include <string>
#include <vector>

#include "core/base/tensor.h"
#include "core/model/head_options.h"
#include "core/model/head_summary.h"

namespace attnlab {

struct HeadTrace {
  Mat q, k, v;          ///< [n, d_head]
  Mat scores;           ///< Q·Kᵀ·scale before any mask  [n, n]; empty when the pass did not keep maps
  Mat attention;        ///< softmax rows (masked entries exactly 0)  [n, n]; rows = queries; empty likewise
  Mat output;           ///< attention·V  [n, d_head]
  HeadOptions options;  ///< the rule that made `attention` from q and k (head_maps.h recomputes it)
  HeadSummary summary;  ///< read off the rows as they were made: tiled heads only (a kept map: summarizeMap)

  /// Whether the forward pass kept this head's n × n maps (short inputs); else head_maps.h recomputes them.
  bool keepsMaps() const { return attention.size() > 0 || q.rows() == 0; }
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

/// Throws InputError naming the size when the activations a trace keeps without maps — per layer and token the
/// residual in and out, concat, attention and MLP outputs (5·d) and each head's q, k, v, output (4·H·d_head) — would
/// exceed kActivationBudgetBytes: a text of 100,000 tokens gets a message, not an allocation failure.
void checkActivationMemory(long long tokens, long long layers, long long dModel, long long headColumns);
inline constexpr double kActivationBudgetBytes = 6.0 * 1024 * 1024 * 1024;

/// Whether a forward pass keeps every head's n × n maps (issue 18). Auto keeps them while they take at most
/// kAutoKeptMapBytes (GPT-2 small: up to 337 tokens; SmolLM2-135M: 246); longer inputs attend in tiles and keep
/// Q, K, V and the summaries, and a view's map is recomputed on demand. Always is the old behaviour (the
/// trained tiny models, tests comparing the two); Never tiles even one token.
enum class MapKeeping { Auto, Always, Never };
inline constexpr double kAutoKeptMapBytes = 128.0 * 1024 * 1024;

/// Decides for an input of `tokens` tokens; throws as checkTraceMemory when the maps would be kept and do not fit.
bool planMapKeeping(MapKeeping policy, long long tokens, long long layers, long long heads);

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
