#pragma once
// What turns the residual stream after the last layer into next-token logits, kept as its parts so the
// analyses can take it apart (DESIGN.md, Round two, direct logit attribution):
//   logits = softcap( norm(T(x)) · W_Uᵀ + b ),  norm(x) = γ ⊙ (x − mean(x)) / σ + β   (LayerNorm)
//                                                norm(x) = γ ⊙ x / σ                    (RMSNorm; Gemma's γ = 1 + w)
//   T(x) = act(x · W_Tᵀ + b_T) for BERT's MLM head (cls.predictions.transform), T(x) = x for every other model.
// With σ (and the mean) frozen at their value for a position, the logit of token t is linear in the
// stream's components c (embeddings, each head's output through its rows of W_O, each MLP, biases):
//   logit_t = Σ_c [γ ⊙ (c − mean(c)) / σ] · u_t + β · u_t + b_t
// (only without T: the dense layer and its GELU make the logit non-linear in the stream).
// W_U is viewed in the model's own storage (no copy): u_t is row t of a [vocab, d] strided view.
#include <Eigen/Dense>
#include <memory>
#include <mutex>

#include "core/base/tensor.h"
#include "core/compute/packed_matrix.h"

namespace attnlab {

/// Rows of x from which Unembedding::logits takes its tiled dot-product kernel (AVX-512 builds).
inline constexpr Eigen::Index kTiledMinRows = 2;

/// W_U repacked for the packed product kernel (core/compute/packed_matrix.h), made on the first multi-row readout
/// and shared by the copies of an Unembedding (they view the same storage). Several rows through the packed
/// kernel run at ~210 GFLOP/s here against 75–90 for dot-product tiles over the row-major W_U: SmolLM2-135M's
/// logit lens (31 rows × 49152 × 576) 20 → 9 ms. It costs one more copy of W_U, so it is made only up to
/// kMaxPackedUnembeddingBytes (GPT-2 154 MB, SmolLM2 113 MB; not Llama 3.2's 1 GB).
struct PackedUnembedding {
  std::once_flag once;
  PackedMatrix wt;  ///< W_Uᵀ [d, vocab]; empty when too big (or not contiguous)
};
inline constexpr double kMaxPackedUnembeddingBytes = 512.0 * 1024 * 1024;

using UnembeddingView = Eigen::Map<const Mat, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

struct Unembedding {
  enum class Norm { Layer, Rms, None };
  enum class Activation { GeluErf, GeluTanh, Relu };
  /// The optional step T before the norm (a masked LM's head transform); empty transformWeight = none.
  Mat transformWeight;  ///< W_T [d, d] as nn.Linear stores it, [out, in] (a copy: d² floats)
  Vec transformBias;    ///< b_T [d]
  Activation transformActivation = Activation::GeluErf;
  Norm norm = Norm::Layer;
  Vec gamma;  ///< [d], the effective scale (Gemma's 1 + w already added)
  Vec beta;   ///< [d], LayerNorm only (empty for RMSNorm)
  double eps = 1e-5;
  const float* data = nullptr;  ///< W_U storage
  Eigen::Index vocab = 0, d = 0;
  Eigen::Index rowStride = 0, colStride = 0;  ///< element (t, j) of W_U at data[t·rowStride + j·colStride]
  Vec bias;                                   ///< [vocab] or empty
  double softcap = 0.0;                       ///< tanh soft-capping of the logits (Gemma 2), 0 = none
  std::shared_ptr<PackedUnembedding> packed = std::make_shared<PackedUnembedding>();

  /// W_U as [vocab, d].
  UnembeddingView weights() const {
    return UnembeddingView(data, vocab, d, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(colStride, rowStride));
  }
  bool hasTransform() const { return transformWeight.size() > 0; }
  /// T(x) of x [n, d] → [n, d]: act(x·W_Tᵀ + b_T), or x itself without a transform.
  Mat transformed(const Mat& x) const;
  /// σ of each row of x [n, d]: √(var + eps) for LayerNorm, √(mean(x²) + eps) for RMSNorm, 1 without a norm.
  Vec scales(const Mat& x) const;
  /// The final norm of x [n, d] → [n, d].
  Mat normalise(const Mat& x) const;
  /// Logits of x [n, d] (the stream after the last layer) → [n, vocab], through T, soft-capped. From
  /// kTiledMinRows rows on, one pass over W_U (or its packed copy) from memory whatever n.
  Mat logits(const Mat& x) const;
  /// The packed W_Uᵀ, made on the first call (thread-safe); nullptr when W_U is too big to copy.
  const PackedMatrix* packedTranspose() const;
};

}  // namespace attnlab
