#pragma once
// Feature maps of linear attention, sim(q, k) = φ(q)·φ(k), next to the exact softmax kernel
// e^{q·k/√d}: φ = 1 + elu (the first-order Taylor expansion of e^x at 0), φ = e^x, φ = relu, and
// Performer's positive random features φ(x) = exp(ω·x − ‖x‖²/2)/√m (E[φ(q)·φ(k)] = e^{q·k}).
//
// Self-contained on purpose: the attention-variants code may later provide these maps; this file is
// the one place to point at it. Every map sees inputs scaled by d^{-1/4} (q' = q·d^{-1/4},
// k' = k·d^{-1/4}, so q'·k' = q·k/√d), as Performer does; rows are tokens.
#include <string>
#include <vector>

#include "core/base/run_control.h"
#include "core/base/tensor.h"
#include "core/spectra/spectra_settings.h"

namespace attnlab {

enum class FeatureMap { EluPlusOne, Exp, Relu, Performer };

/// All maps, in display order.
std::vector<FeatureMap> featureMaps();
/// Short name: "1+elu", "exp", "relu", "performer".
const char* featureMapName(FeatureMap f);

/// φ(x) of an elementwise map. Throws InputError for Performer (it mixes coordinates).
double featureScalar(FeatureMap f, double x);

/// Performer's random directions ω_1…ω_m as rows   [m, d]. Orthogonal: blocks of d orthonormal
/// rows (QR of a d×d Gaussian) each rescaled by the norm of a fresh Gaussian d-vector (χ_d), so the
/// rows keep the marginal of N(0, I_d); otherwise i.i.d. N(0, I_d) rows.
MatD performerOmega(int d, int m, uint64_t seed, bool orthogonal);

/// Positive random features of each row of x:  exp(x·Ωᵀ − ‖x_i‖²/2)/√m   [n, m].
MatD performerFeatures(const MatD& x, const MatD& omega);

/// φ of each row of x·d^{-1/4} (d = x.cols())   [n, d] (elementwise maps) or [n, m] (Performer,
/// which needs `omega`).
MatD applyFeatureMap(FeatureMap f, const MatD& x, const MatD* omega = nullptr);

/// Linear attention matrix from features: A_ij = φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j')  [n, n], keys
/// j > i dropped when causal. A row whose kernel sums to 0 (possible with relu) stays 0 and is counted
/// in `emptyRows`: no ε is added, so the problem stays visible.
MatD linearAttention(const MatD& phiQ, const MatD& phiK, bool causal, int* emptyRows = nullptr);

/// Pearson correlation of all entries of two same-shape matrices (0 when either is constant).
double pearson(const MatD& a, const MatD& b);

struct FeatureMapEntry {
  FeatureMap map;
  int features = 0;        ///< m: d for the elementwise maps
  MatD kernel;             ///< φ(q_i)·φ(k_j)   [n, n]
  double fitScale = 1;     ///< least-squares α with exact ≈ α·kernel (attention ignores α)
  double correlation = 0;  ///< Pearson(exact, kernel) over all pairs
  MatD attention;          ///< row-normalised kernel (masked when causal)   [n, n]
  int emptyRows = 0;
  int numericalRank = 0;
  double effectiveRank = 0;
  double entropy = 0;  ///< mean row entropy, nats
};

struct FeatureMapComparison {
  int n = 0, dHead = 0;
  MatD exact;    ///< e^{q_i·k_j/√d}   [n, n]
  MatD softmax;  ///< softmax rows of q·k/√d (masked when causal)   [n, n]
  int softmaxRank = 0;
  double softmaxEffectiveRank = 0, softmaxEntropy = 0;
  std::vector<FeatureMapEntry> maps;  ///< in featureMaps() order
};

/// Every map against the exact kernel for these Q, K [n, d]. Performer uses settings.performerFeatures
/// (0: 4·d) features from settings.performerSeed. Checks `control` between maps.
FeatureMapComparison compareFeatureMaps(const MatD& q, const MatD& k, bool causal, const FeatureMapSettings& s,
                                        const RunControl& control = {});

}  // namespace attnlab
