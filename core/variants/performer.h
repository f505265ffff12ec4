#pragma once
// Performer's FAVOR+ (Choromanski et al. 2021) as DESIGN.md states it. Inputs are scaled by √c on
// both sides (c = 1/√d_head for scaled softmax, divided by the temperature) so that
//   φ(q')·φ(k') ≈ exp(q·k·c):
//   positive features       φ(x) = exp(Wx − ‖x‖²/2) / √m                      [m]  (rank ≤ m)
//   trigonometric features  φ(x) = exp(‖x‖²/2) [sin(Wx), cos(Wx)] / √m        [2m] (rank ≤ 2m)
// with W [m, d] Gaussian rows, iid or orthogonal (blocks of orthonormal rows rescaled by χ_d norms).
#include <cstdint>

#include "core/variants/attention_variant.h"

namespace attnlab {

enum class FeatureKind { Positive, Trig };

const char* toString(FeatureKind k);
/// "positive" or "trig"; throws InputError listing both.
FeatureKind parseFeatureKind(const std::string& s);

/// m random projections ω_l ~ N(0, I_d) as rows  [m, d]. Orthogonal: each block of d rows is the Q of
/// a Gaussian d×d matrix (signs fixed by R's diagonal, so Haar-distributed), every row rescaled to the
/// length of an independent Gaussian d-vector (χ_d), which keeps each row's marginal N(0, I_d).
MatD drawFeatures(int d, int m, bool orthogonal, uint64_t seed);

/// Positive features of the rows of x  [n, m]. `stabilize`: subtract the max of Wx — per row when
/// `perRow` (queries), over the whole matrix otherwise (keys); exact after row normalisation.
/// `epsilon` is added to every feature before the 1/√m factor: not exact, optional.
MatD positiveFeatures(const MatD& x, const MatD& w, bool stabilize, bool perRow, double epsilon = 0);
/// Trigonometric features of the rows of x  [n, 2m]. `stabilize` replaces exp(‖x‖²/2) by
/// exp(‖x‖²/2 − shift) with shift the row's own value (queries) or the max over rows (keys).
MatD trigFeatures(const MatD& x, const MatD& w, bool stabilize, bool perRow);

struct PerformerConfig {
  int features = 64;  ///< m, 1..4096
  FeatureKind kind = FeatureKind::Positive;
  bool orthogonal = false;
  uint64_t seed = 1;
  bool stabilize = true;  ///< max subtraction: exact
  double epsilon = 0;     ///< added to positive features: not exact
  bool scaled = true;     ///< approximate softmax of Q·Kᵀ/√d (else of Q·Kᵀ)
  double temperature = 1;
};

class PerformerAttention : public KernelAttention {
 public:
  /// `name` is how the variant was asked for ("performer", "performer-trig", …).
  explicit PerformerAttention(const PerformerConfig& config, std::string name = "performer");
  std::string name() const override { return name_; }
  std::string describe() const override;
  Features features(const MatD& q, const MatD& k) const override;
  const PerformerConfig& config() const { return config_; }

 private:
  PerformerConfig config_;
  std::string name_;
};

}  // namespace attnlab
