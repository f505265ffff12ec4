#pragma once
// Linear attention with an elementwise feature map φ (Katharopoulos et al. 2020; Su, seeds/000):
//   sim(q, k) = φ(q)·φ(k),  out_i = φ(q_i)ᵀ(Σ_j φ(k_j)v_jᵀ) / φ(q_i)ᵀ(Σ_j φ(k_j)).
// φ maps d_head → d_head, so the attention matrix has rank ≤ d_head however long the sequence.
#include "core/variants/attention_variant.h"

namespace attnlab {

enum class FeatureMap {
  EluPlusOne,  ///< 1 + elu(x): 1 + x for x ≥ 0, eˣ below (Katharopoulos et al.)
  Exp,         ///< eˣ (Su's simplification of Performer)
  Relu,        ///< max(x, 0); a row whose similarities are all 0 gets zero weights
};

class LinearAttention : public KernelAttention {
 public:
  /// `stabilize` (φ = exp only): subtract each query's max and the global key max before exp —
  /// exact after row normalisation, avoids overflow.
  explicit LinearAttention(FeatureMap map, bool stabilize = true);
  std::string name() const override;
  std::string describe() const override;
  Features features(const MatD& q, const MatD& k) const override;

 private:
  FeatureMap map_;
  bool stabilize_;
};

}  // namespace attnlab
