#pragma once
// Measures of rank collapse, in double precision (DESIGN.md, numerical conventions). Rows are tokens.
//   res(X) = X − 1·x̄ᵀ with x̄ the mean over tokens: what is left once every token is replaced by the
//   average token. res(X) = 0 exactly when all rows are equal (the output has collapsed to rank 1).
#include "core/base/tensor.h"
#include "core/collapse/collapse_settings.h"
#include "core/spectra/attention_metrics.h"  // singularValues

namespace attnlab {

/// res(X) = X − 1·mean_tokens(X)ᵀ  [n, d]. The mean is taken as x_0 + mean_i(x_i − x_0): exact (res = 0)
/// when all rows are equal, and free of the rounding of the plain mean when the rows are nearly equal
/// (the collapse regime, where the plain mean would bury a 1e-16 residual in its own rounding).
MatD tokenResidual(const MatD& x);

/// ‖M‖₁ = the largest column abs-sum; ‖M‖_∞ = the largest row abs-sum; composite √(‖M‖₁·‖M‖_∞).
double norm1(const MatD& m);
double normInf(const MatD& m);
double compositeNorm(const MatD& m);

/// ‖res(X)‖/‖X‖ in the chosen norm; 0 for X = 0 (nothing left to collapse).
double relativeResidual(const MatD& x, ResidualNorm norm);

/// Cosine similarity of every pair of rows  [n, n]; a zero row has similarity 0 with every row
/// (including itself), so it cannot pass for a collapsed token.
MatD tokenCosineSimilarity(const MatD& x);

/// Distance to the best rank-1 approximation, relative: ‖M − M₁‖_F/‖M‖_F = √(Σ_{i≥2} σ_i²/Σ σ_i²)
/// (Eckart–Young). 0 for a rank-1 or zero matrix; √((n−1)/n) for the n×n identity.
double rank1Residual(const MatD& m);

}  // namespace attnlab
