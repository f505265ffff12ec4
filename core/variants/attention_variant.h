#pragma once
// Attention variants side by side (seeds/000, From Performer to linear attention). Every variant has
// two paths over the same Q, K, V, in double:
//   explicit  : the n×n attention matrix A (rows = queries, masked entries exactly 0), for display and
//               analysis; its output is A·V.
//   efficient : the output without forming A — O(n) memory for softmax, O(n·m·d_v) time for the
//               kernel (linear, Performer) kinds, O(n·w) for a local window.
// Tests check that the two agree to ≤1e-9.
#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "core/base/tensor.h"

namespace attnlab {

/// Which keys a query may see: all, a causal prefix (j ≤ i), a local window |i − j| ≤ w, or both.
struct AttentionMask {
  bool causal = false;
  int window = -1;  ///< < 0: no window

  bool full() const { return !causal && window < 0; }
  /// First and last key (inclusive) query i may see in a sequence of n.
  Eigen::Index first(Eigen::Index i) const { return window < 0 ? 0 : std::max<Eigen::Index>(0, i - window); }
  Eigen::Index last(Eigen::Index i, Eigen::Index n) const {
    if (causal) return i;
    return window < 0 ? n - 1 : std::min<Eigen::Index>(n - 1, i + window);
  }
  bool allows(Eigen::Index i, Eigen::Index j) const {
    return j >= first(i) && j <= last(i, std::numeric_limits<Eigen::Index>::max());
  }
};

/// One attention variant: a name, its parameters, and its two paths. Q and K are [n, d_head], V is
/// [n, d_v]. Implementations are immutable and thread-safe.
class AttentionVariant {
 public:
  virtual ~AttentionVariant() = default;
  /// The name used on the command line and in JSON, e.g. "linear-elu".
  virtual std::string name() const = 0;
  /// One line with the parameters, e.g. "Performer, positive, orthogonal, m = 64".
  virtual std::string describe() const = 0;
  /// Explicit path: the attention matrix  [n, n]. A row with no positive similarity is all zeros.
  virtual MatD attention(const MatD& q, const MatD& k, const AttentionMask& mask) const = 0;
  /// Efficient path: the output, equal to attention(q, k, mask)·V  [n, d_v].
  virtual MatD output(const MatD& q, const MatD& k, const MatD& v, const AttentionMask& mask) const = 0;
};

using VariantPtr = std::shared_ptr<const AttentionVariant>;

/// softmax(mask(Q·Kᵀ·c)) with c = (scaled ? 1/√d_head : 1) / temperature.
class SoftmaxAttention : public AttentionVariant {
 public:
  SoftmaxAttention(bool scaled, double temperature);
  std::string name() const override;
  std::string describe() const override;
  MatD attention(const MatD& q, const MatD& k, const AttentionMask& mask) const override;
  /// Row by row over the visible keys only: O(n) memory, O(n·w) time with a window.
  MatD output(const MatD& q, const MatD& k, const MatD& v, const AttentionMask& mask) const override;
  double logitScale(Eigen::Index dHead) const;

 private:
  bool scaled_;
  double temperature_;
};

/// Kernel attention: sim(q_i, k_j) = φ_q(q_i)·φ_k(k_j), A_ij = sim_ij / Σ_j' sim_ij' over visible keys.
/// Subclasses give the feature maps; both paths live here.
class KernelAttention : public AttentionVariant {
 public:
  struct Features {
    MatD q;  ///< φ(Q)  [n, m']
    MatD k;  ///< φ(K)  [n, m']
  };
  /// The feature maps of the rows of Q and K.
  virtual Features features(const MatD& q, const MatD& k) const = 0;

  MatD attention(const MatD& q, const MatD& k, const AttentionMask& mask) const override;
  /// Without a mask: out = φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1), O(n·m'·d_v). Causal: prefix sums of φ(k_j)v_jᵀ
  /// (in blocks of 64 rows, the block's own part masked explicitly). Window: the visible keys only.
  MatD output(const MatD& q, const MatD& k, const MatD& v, const AttentionMask& mask) const override;
};

/// Divides each row of `numerator` by `denominator` (0 where the denominator is 0).
MatD divideRows(const MatD& numerator, const VecD& denominator);

/// Q, K, V of a traced head in analysis precision.
inline MatD toDouble(const Mat& m) { return m.cast<double>(); }

}  // namespace attnlab
