#pragma once
// Everything a forward pass computed, kept for the views and the analyses.
// Shapes: n tokens, d = d_model, d_head per head.
#include <memory>
#include <string>
#include <vector>

#include "core/base/tensor.h"
#include "core/model/head_options.h"
#include "core/model/head_summary.h"

namespace attnlab {

/// A matrix several traces or heads hold without copies: the K and V of a kv head, read by every query head of its
/// group (grouped-query attention) and by the traces that reuse a layer.
using SharedMat = std::shared_ptr<const Mat>;
inline SharedMat shareMat(Mat m) { return std::make_shared<const Mat>(std::move(m)); }

struct HeadTrace {
  Mat q;                ///< [n, d_head]
  SharedMat keys;       ///< K [n, d_head], once per kv head: the query heads of a group share it
  SharedMat values;     ///< V [n, d_head], likewise
  Mat scores;           ///< Q·Kᵀ·scale before any mask  [n, n]; empty when the pass did not keep maps
  Mat attention;        ///< softmax rows (masked entries exactly 0)  [n, n]; rows = queries; empty likewise
  HeadOptions options;  ///< the rule that made `attention` from q and k (head_maps.h recomputes it)
  HeadSummary summary;  ///< read off the rows as they were made: tiled heads only (a kept map: summarizeMap)

  const Mat& k() const { return keys ? *keys : emptyMat(); }
  const Mat& v() const { return values ? *values : emptyMat(); }
  /// Whether the forward pass kept this head's n × n maps (short inputs); else head_maps.h recomputes them.
  bool keepsMaps() const { return attention.size() > 0 || q.rows() == 0; }

 private:
  static const Mat& emptyMat();
};

/// One layer. The head outputs are concat's column blocks (LayerTrace::headOutput), the layer's input is the previous
/// layer's output (Trace::layerInput): a long input's trace holds each number once (issue 18).
struct LayerTrace {
  std::vector<HeadTrace> heads;
  Mat concat;  ///< heads' outputs A·V side by side  [n, H·d_head]; head h in columns h·d_head …
  /// What attention adds to the residual: concat·Wo (+ b), after Gemma 2/3's post-norm  [n, d]. Empty in a trace
  /// whose model recomputes it (Trace::outputsFrom): read it through layer_outputs.h.
  Mat attentionOut;
  /// What the MLP adds to the residual (after Gemma 2/3's post-norm) [n, d]; empty without an MLP, and empty like
  /// attentionOut where the model recomputes them (then it is the output − the input − attentionOut).
  Mat mlpOut;
  Mat residualOut;  ///< the layer's output  [n, d]

  /// Head h's output A·V  [n, d_head]: its columns of concat (a view; contiguous, column-major).
  Eigen::Block<const Mat, Eigen::Dynamic, Eigen::Dynamic, true> headOutput(int h) const {
    const Eigen::Index dh = headWidth();
    return concat.middleCols(static_cast<Eigen::Index>(h) * dh, dh);
  }
  Eigen::Index headWidth() const { return heads.empty() ? 0 : concat.cols() / static_cast<Eigen::Index>(heads.size()); }
};

/// Throws InputError when keeping the scores and attention of every head (2·layers·heads·n² floats)
/// would exceed the trace budget (2 GiB): a clear message instead of swapping or an allocation failure.
void checkTraceMemory(long long tokens, long long layers, long long heads);

/// Floats a trace keeps per token and layer: q and the heads' outputs (concat), K and V once per kv head, the layer's
/// output, and — unless the model recomputes them (Trace::outputsFrom) — the attention and MLP outputs.
/// SmolLM2-135M: 2,112 in a long input's trace (8,192 tokens: 2.1 GB), 3,264 when the outputs are kept.
double activationFloatsPerToken(long long dModel, long long queryColumns, long long kvColumns, bool keepsOutputs);

/// Throws InputError naming the size when the activations a trace keeps without maps — `floatsPerToken` per token and
/// layer (activationFloatsPerToken) — would exceed activationBudgetBytes(): a text of 100,000 tokens gets a message,
/// not an allocation failure or a machine swapping.
void checkActivationMemory(long long tokens, long long layers, double floatsPerToken);
/// Half of this machine's physical memory, at least 2 GB (kMinActivationBudgetBytes): the rest is for the weights,
/// the maps recomputed for the views, a second trace while an edit runs, and the system.
double activationBudgetBytes();
inline constexpr double kMinActivationBudgetBytes = 2.0 * 1024 * 1024 * 1024;

/// Whether a forward pass keeps every head's n × n maps (issue 18). Auto keeps them while they take at most
/// kAutoKeptMapBytes (GPT-2 small: up to 337 tokens; SmolLM2-135M: 246); longer inputs attend in tiles and keep
/// Q, K, V and the summaries, and a view's map is recomputed on demand. Always is the old behaviour (the
/// trained tiny models, tests comparing the two); Never tiles even one token.
enum class MapKeeping { Auto, Always, Never };
inline constexpr double kAutoKeptMapBytes = 128.0 * 1024 * 1024;

/// Decides for an input of `tokens` tokens; throws as checkTraceMemory when the maps would be kept and do not fit.
bool planMapKeeping(MapKeeping policy, long long tokens, long long layers, long long heads);

class Model;

struct Trace {
  std::vector<std::string> tokens;  ///< display strings, one per row
  std::vector<int> tokenIds;        ///< vocabulary ids where the model has a vocabulary, else empty
  Mat embeddings;                   ///< input to layer 0  [n, d]
  std::vector<LayerTrace> layers;
  bool causal = false;
  /// Key/value heads of grouped-query attention (0 = one per query head). Query head h then reads kv head
  /// h / (heads / kvHeads); the HeadTraces of a group share its K and V.
  int kvHeads = 0;
  /// The model that recomputes the layers' attention and MLP outputs this trace does not keep (a long input of GPT-2 or
  /// a decoder: layer_outputs.h); null when every layer keeps them.
  std::shared_ptr<const Model> outputsFrom;

  int tokenCount() const { return static_cast<int>(tokens.size()); }
  int layerCount() const { return static_cast<int>(layers.size()); }
  int headCount() const { return layers.empty() ? 0 : static_cast<int>(layers[0].heads.size()); }
  int kvHeadCount() const { return kvHeads > 0 ? kvHeads : headCount(); }
  /// The kv head query head h reads.
  int kvHeadOf(int h) const { return kvHeads > 0 ? h / (headCount() / kvHeads) : h; }
  /// The stream layer `layer` read [n, d]: the embeddings, or the previous layer's output (a residual patch applied,
  /// intervention.h); layer == layerCount() gives the last layer's output.
  const Mat& layerInput(int layer) const { return layer == 0 ? embeddings : layers[layer - 1].residualOut; }
};

}  // namespace attnlab
