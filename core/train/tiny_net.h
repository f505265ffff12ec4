#pragma once
// Forward and backward pass of the tiny transformer (tiny_config.h) over a batch of B sequences of T
// tokens, stacked as B·T rows: sequence b owns rows b·T … b·T + T − 1. The forward pass is the one the
// trained model's Trace comes from (tiny_model.h), so training and viewing share one implementation;
// it uses the building blocks of every other model (blocks.h). Instantiated for float (training, views)
// and double (finite-difference checks).
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "core/train/tiny_config.h"
#include "core/train/tiny_layer_norm.h"
#include "core/train/tiny_params.h"

namespace attnlab {

template <typename S>
struct TinyLayerCache {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  M xIn;  ///< the layer's input  [BT, d]
  TinyLayerNormCache<S> ln1;
  M a;    ///< LN₁(xIn), or xIn without LayerNorm  [BT, d]
  M qkv;  ///< Q | K | V side by side (one product a·[Wq Wk Wv])  [BT, 3d]
  auto q() const { return qkv.leftCols(qkv.cols() / 3); }                    ///< [BT, d]
  auto k() const { return qkv.middleCols(qkv.cols() / 3, qkv.cols() / 3); }  ///< [BT, d]
  auto v() const { return qkv.rightCols(qkv.cols() / 3); }                   ///< [BT, d]
  M fq, fk;                                                                  ///< linear variants: φ(q), φ(k)  [BT, d]
  std::vector<M> attention;  ///< per (sequence b, head h) at b·H + h: [T, T], rows = queries
  M concat;                  ///< heads' outputs side by side  [BT, d]
  M attnOut;                 ///< concat·Wo  [BT, d]
  TinyLayerNormCache<S> ln2;
  M mlpIn, hidden, act;  ///< MLP: LN₂(x), pre-activation, GELU/ReLU  [BT, d], [BT, 4d], [BT, 4d]
  M mlpOut;              ///< [BT, d]; empty without MLP
  M xOut;                ///< [BT, d]
};

template <typename S>
struct TinyForward {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  int batch = 0, tokens = 0;
  M x0;  ///< embeddings  [BT, d]
  std::vector<TinyLayerCache<S>> layers;
  TinyLayerNormCache<S> lnf;
  M final;  ///< LN_f(last residual)  [BT, d]
  /// Rows of `final` the logits were computed for: all rows, or (training) only the scored ones — a
  /// third of the positions of an induction batch predict nothing, and the unembedding is the widest product.
  std::vector<int> logitRows;
  M finalRows;  ///< final's rows at logitRows  [R, d]
  M logits;     ///< [R, V]; row i belongs to position logitRows[i]
};

/// Changes to a forward pass at the two places every model applies the ablations and patches of
/// core/model/intervention.h: the heads' concatenated outputs [BT, d] before the output projection, and the
/// residual stream [BT, d] entering a layer (layer = layers: the stream after the last layer). Null: none.
/// `site` and `attention` are Python's run_with_hooks (forward_hooks.h): the layer's other activations, changed in
/// place (Qkv: Q | K | V [BT, 3d]; AttnOut, Mid — the stream between attention and MLP —, MlpOut [BT, d]; Embed and
/// PosEmbed, layer −1: the token and position rows [BT, d] the embeddings add), and the
/// attention maps (batch·heads [T, T], softmax rows) and the scores below, after which the heads' outputs are A·V of
/// the maps left.
enum class TinySite { Qkv, AttnOut, Mid, MlpOut, Embed, PosEmbed };
template <typename S>
struct TinyHooks {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  std::function<void(int layer, M& concat)> concat;
  std::function<void(int layer, M& stream)> residual;
  std::function<void(TinySite site, int layer, M& m)> site;
  std::function<void(int layer, std::vector<M>& attention)> attention;
  /// The masked scores (batch·heads [T, T], −∞ above the diagonal) before the softmax, for the layers where
  /// wantsScores says so; the maps are then the softmax of what it leaves (softmax attention only).
  std::function<bool(int layer)> wantsScores;
  std::function<void(int layer, std::vector<M>& scores)> scores;
};

/// Runs the model on `batch` sequences of `tokens` ids each (ids row-major: ids[b·T + t]). Ids must lie
/// in [0, V) and tokens ≤ context (callers check; tiny_model.h does for typed text). With `targets`
/// (as for tinyCrossEntropy), logits are computed only for the rows whose target is ≥ 0.
template <typename S>
void tinyForward(const TinyConfig& c, const TinyParams<S>& p, const int* ids, int batch, int tokens,
                 TinyForward<S>& out, const int* targets = nullptr, const TinyHooks<S>* hooks = nullptr);

/// Mean cross-entropy over the rows whose target is ≥ 0, divided by `normalizer` instead of the count
/// when normalizer > 0 (so chunks of one batch, run on separate threads, add up to the batch mean).
/// Writes dLoss/dLogits into `dLogits` [R, V] (the rows of f.logits). Returns the summed loss / normalizer.
template <typename S>
double tinyCrossEntropy(const TinyForward<S>& f, const int* targets, double normalizer,
                        Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& dLogits);

/// Back-propagates dLogits through the forward pass, adding every parameter's gradient into `grads`
/// (which must have the shapes of p, e.g. p.zerosLike()).
template <typename S>
void tinyBackward(const TinyConfig& c, const TinyParams<S>& p, const TinyForward<S>& f, const int* ids,
                  const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& dLogits, TinyParams<S>& grads);

}  // namespace attnlab
