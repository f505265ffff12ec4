#pragma once
// Metrics of an attention matrix A [n, n] (rows = queries), all in double:
//   rank      numerical rank with numpy's matrix_rank tolerance: σ_i > σ_max·max(rows, cols)·ε_double
//   entropy   mean over rows of −Σ_j p_ij ln p_ij (nats), p = |A| row-normalised (trigonometric
//             Performer weights can be negative), 0·ln 0 = 0
//   sparsity  mean over rows of the share of the row's mass Σ|a| in its k largest |a|
//   rel_error ‖Â − A‖_F / ‖A‖_F against the reference (softmax)
//   output_mse mean of (out − out_ref)² over all n·d_v entries
#include "core/base/tensor.h"

namespace attnlab {

/// Singular values in decreasing order.
VecD singularValues(const MatD& a);
/// numpy.linalg.matrix_rank's default: count of σ_i > σ_max · max(rows, cols) · DBL_EPSILON.
int numericalRank(const MatD& a);
double meanRowEntropy(const MatD& a);
/// `k` is clamped to [1, cols].
double topKSparsity(const MatD& a, int k);
/// 0 when both are zero; +∞ when only the reference is zero.
double relativeFrobeniusError(const MatD& approx, const MatD& reference);
double meanSquaredError(const MatD& a, const MatD& b);

}  // namespace attnlab
