#pragma once
// The deep-stack runner of the rank-collapse explorer: L layers of multi-head self-attention in one
// of the configurations of collapse_settings.h, run in double precision with the engine's own blocks
// (blocks.h: softmax, LayerNorm, GELU, affine — instantiated on MatD, never re-implemented).
// Shapes: n tokens, d = d_model, H heads of d_head = d/H.
//
// The attention function is pluggable: a deep stack only needs "Q, K, V → output" per head, so any
// variant (softmax now; linear attention or Performer once they exist) can be dropped in through
// AttentionFn without touching the runner.
#include <functional>
#include <string>
#include <vector>

#include "core/base/run_control.h"
#include "core/base/tensor.h"
#include "core/collapse/collapse_settings.h"

namespace attnlab {

/// One head's attention: Q, K [n, d_head], V [n, d_head] → output [n, d_head]. When `weights` is not
/// null the function also stores its n×n attention matrix there (rows = queries, each row summing to 1
/// for softmax); a variant without an explicit matrix materialises the equivalent one.
using AttentionFn = std::function<MatD(const MatD& q, const MatD& k, const MatD& v, MatD* weights)>;

/// softmax(Q·Kᵀ/√d_head)·V, through blocks.h's softmaxRowsInPlace.
AttentionFn softmaxAttention(int dHead);

/// Names accepted for `variant` in the deep stack, in menu order. Only "softmax" for now.
std::vector<std::string> stackAttentionVariants();
/// The attention of a variant by name. Throws InputError for unknown names, and a clear "not available
/// yet" for the variants other parts of the program are still adding (linear, performer, …).
AttentionFn makeStackAttention(const std::string& variant, int dHead, uint64_t seed);

struct StackLayerWeights {
  MatD wq, wk, wv, wo;  ///< [d, d]; head h uses columns h·d_head … (h+1)·d_head − 1 of wq, wk, wv
  MatD w1;              ///< [d, 4d]
  VecD b1;              ///< [4d]
  MatD w2;              ///< [4d, d]
  VecD b2;              ///< [d]
  VecD ln1Gamma, ln1Beta, ln2Gamma, ln2Beta;  ///< [d]
};

struct StackWeights {
  int dModel = 0, heads = 0;
  std::vector<StackLayerWeights> layers;
};

/// Random weights of layer `layer` (0-based): every matrix from its own stream (seed, layer, which), so
/// a deeper stack extends a shallower one with the same first layers. Biases 0, LayerNorm γ = 1, β = 0.
/// Fans are those of the full matrices ([d, d] for the attention projections, [d, 4d] and [4d, d] for
/// the MLP), as nn.Linear(d, d) would have them. `mlpGain` g multiplies W2 (CollapseSettings::mlpGain): the
/// MLP's output and Lipschitz constant scale by g; its streams stay the same, so g = 1 is the plain init.
StackLayerWeights makeLayerWeights(int dModel, InitScheme init, uint64_t seed, int layer, double mlpGain = 1.0);
/// All `depth` layers of makeLayerWeights at once (tests, small stacks).
StackWeights makeStackWeights(int dModel, int heads, int depth, InitScheme init, uint64_t seed);

/// The weights of layer l (0-based), asked for in increasing order. A deep stack holds one layer's
/// weights at a time this way: 128 layers at d = 256 would otherwise take 800 MB per seed.
using LayerWeightsFn = std::function<const StackLayerWeights&(int layer)>;
/// makeLayerWeights on demand, keeping only the latest layer.
LayerWeightsFn randomLayerWeights(int dModel, InitScheme init, uint64_t seed, double mlpGain = 1.0);
/// The layers of `w` (which must outlive the function).
LayerWeightsFn givenLayerWeights(const StackWeights& w);

/// Random input rows X_0 ~ N(0, 1)  [n, d].
MatD randomStackInput(int tokens, int dModel, uint64_t seed);

struct StackOptions {
  ResidualNorm norm = ResidualNorm::Composite;
  bool keepStates = false;     ///< keep X_0 … X_L
  bool keepAttention = false;  ///< keep every layer's attention matrices
  int keepOnlyLayer = -1;      ///< ≥ 0: keep states/attention of this depth only (the others stay empty)
};

/// Values beyond these magnitudes stop a run: squares of entries (LayerNorm's variance, the scores'
/// dot products) then stay inside the normal double range, so nothing downstream overflows or
/// underflows into denormals. The curve ends there and says why; no NaN or inf is ever produced.
inline constexpr double kStackOverflowLimit = 1e150;
inline constexpr double kStackUnderflowLimit = 1e-150;

struct StackRun {
  std::vector<double> residual;  ///< ‖res(X_l)‖/‖X_l‖ for l = 0 … reached depth
  int stoppedAt = -1;            ///< first depth whose X left the safe range, −1 when the run completed
  std::string stopReason;        ///< "overflow" (entries above 1e150), "underflow" (below 1e-150) or "non-finite"
  std::vector<MatD> states;      ///< X_l when kept (index l), else empty matrices
  std::vector<std::vector<MatD>> attention;  ///< [l − 1][head]: the attention producing X_l, when kept

  int reachedDepth() const { return static_cast<int>(residual.size()) - 1; }
};

/// One layer of configuration `c`: X_{l} → X_{l+1}  [n, d]. `attention` receives each head's matrix
/// when not null.
MatD stackLayer(StackConfig c, const StackLayerWeights& w, int heads, const MatD& x, const AttentionFn& attend,
                std::vector<MatD>* attention = nullptr);

/// Runs `depth` layers (≤ weights.layers.size()) from X_0. Checks the control between layers (throws
/// Cancelled). Throws InputError when shapes do not fit.
StackRun runStack(StackConfig c, const StackWeights& w, int depth, const MatD& x0, const AttentionFn& attend,
                  const StackOptions& options = {}, const RunControl& control = {});

/// Runs several configurations side by side on the same weights, layer by layer, so each layer's
/// weights are made (or read) once for all of them. One StackRun per configuration, in order.
std::vector<StackRun> runStacks(const std::vector<StackConfig>& configs, int dModel, int heads, int depth,
                                const MatD& x0, const LayerWeightsFn& weights, const AttentionFn& attend,
                                const StackOptions& options = {}, const RunControl& control = {});

}  // namespace attnlab
