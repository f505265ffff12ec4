#pragma once
// The built-in transformer: random weights drawn from a seed, word embeddings from hashing, the
// teaching ladder of model_config.h. Weight matrices are stored [in, out] so a layer reads x·W.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/model/model.h"
#include "core/model/model_config.h"

namespace attnlab {

/// The built-in model's LayerNorm epsilon (every LayerNorm of every rung).
inline constexpr double kBuiltinLayerNormEps = 1e-5;

struct BuiltinLayerWeights {
  Mat wq, wk, wv;                            ///< [d, d]; head h uses columns h·d_head … (h+1)·d_head − 1
  Mat wo;                                    ///< [d, d]
  Vec ln1Gamma, ln1Beta, ln2Gamma, ln2Beta;  ///< [d]
  Mat w1;                                    ///< [d, 4d]
  Vec b1;                                    ///< [4d]
  Mat w2;                                    ///< [4d, d]
  Vec b2;                                    ///< [d]
};

/// Throws InputError with the size and the budget (activationBudgetBytes, core/model/trace.h) when the built-in
/// model's random weights for `config` would not fit: `--d-model 4096 --layers 128`, inside every option's own range,
/// would take 96 GB and ended in std::bad_alloc or a swapping machine.
void checkBuiltinWeightMemory(const ModelConfig& config);

class BuiltinModel : public Model {
 public:
  /// Throws InputError when the config is invalid.
  /// Draws the weights; `control` (optional) is checked per layer, so building a large model can be
  /// cancelled and shows progress.
  explicit BuiltinModel(const ModelConfig& config, bool lowercase = true, const RunControl& control = {});
  /// The same structure with given weights (one entry per layer; shapes as documented above), e.g.
  /// from a reference script. Throws InputError when a shape does not fit the config.
  BuiltinModel(const ModelConfig& config, std::vector<BuiltinLayerWeights> weights, bool lowercase = true);

  ModelInfo info() const override;
  TokenizedText tokenize(const std::string& text) const override;
  Trace forward(const TokenizedText& text, const RunControl& control = {}, const Intervention& iv = {}) const override;

  /// Forward from given input rows X [n, d] (skips tokenization and embedding). Throws InputError
  /// when n is 0 or above max tokens, or when the rows are not d_model wide.
  Trace forwardEmbeddings(const Mat& x, const RunControl& control = {}, const ForwardHooks* hooks = nullptr) const;

  const ModelConfig& config() const { return config_; }
  const EffectiveStructure& structure() const { return structure_; }
  const std::vector<BuiltinLayerWeights>& weights() const { return layers_; }

  // The pieces of a layer, reachable for rung 7 (builtin_encdec.h), which wires the same weights into a decoder.
  /// Word vectors + position information  [n, d], from caches: typing re-embeds the same words and
  /// positions on every keystroke, and drawing the Gaussians is a fifth of a small forward pass.
  Mat embed(const std::vector<std::string>& words) const;
  /// Multi-head attention of layer weights `w`: queries from rows `from` [n_q, d], keys and values from rows `over`
  /// [n_k, d] (self-attention: the same rows; cross-attention: the encoder's output). Appends one HeadTrace per head
  /// to `heads`, fills `concat` [n_q, d] and returns what the sub-block adds, concat·Wo (concat itself below rung 4).
  /// `causal` masks key j > query i. Hooks only for self-attention (nullptr otherwise).
  Mat attend(const BuiltinLayerWeights& w, const Mat& from, const Mat& over, bool causal, std::vector<HeadTrace>& heads,
             Mat& concat, int layer = 0, const ForwardHooks* hooks = nullptr) const;
  /// The MLP sub-block's output W2·act(W1·x + b1) + b2  [n, d] (hidden width 4·d).
  Mat mlp(const BuiltinLayerWeights& w, const Mat& x) const;

 private:
  LayerTrace runLayer(const BuiltinLayerWeights& w, const Mat& x, int layer = 0,
                      const ForwardHooks* hooks = nullptr) const;
  Mat attentionBlock(const BuiltinLayerWeights& w, const Mat& x, LayerTrace& trace, int layer = 0,
                     const ForwardHooks* hooks = nullptr) const;

  ModelConfig config_;
  EffectiveStructure structure_;
  bool lowercase_;
  std::vector<BuiltinLayerWeights> layers_;
  mutable std::mutex embedMutex_;  // forward() may run on several threads at once
  mutable std::unordered_map<std::string, Vec> wordCache_;
  mutable Mat positionCache_;  ///< rows 0..k−1 of the position information  [k, d]
};

}  // namespace attnlab
