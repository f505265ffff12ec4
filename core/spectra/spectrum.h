#pragma once
// Spectra of one matrix, in double precision: singular values (Eigen's BDCSVD; LAPACK's dgesdd from 48
// rows up), eigenvalues (Eigen's EigenSolver; LAPACK, dgeev's steps, from 48 up; the diagonal of a
// triangular matrix), numerical rank with numpy's matrix_rank convention and the effective rank.
// Works on any matrix: an attention matrix of any variant, pre-softmax scores, exp of the scores.
#include <complex>
#include <vector>

#include "core/base/run_control.h"
#include "core/base/tensor.h"
#include "core/spectra/attention_metrics.h"  // singularValues, numericalRank, meanRowEntropy

namespace attnlab {

/// Eigenvalues of a square matrix (no eigenvectors), sorted by decreasing modulus. A triangular matrix
/// (every causal attention matrix) gives its diagonal directly, exactly. Throws InputError for a non-square matrix and
/// when the QR iteration does not converge. `control` sees the LAPACK path's steps (lapackEigenvalues).
std::vector<std::complex<double>> eigenvalues(const MatD& m, const RunControl& control = {});

/// numpy's matrix_rank tolerance: σ_max · max(rows, cols) · ε(double). `sv` descending.
double rankThreshold(const VecD& sv, Eigen::Index rows, Eigen::Index cols);

/// Number of singular values strictly above rankThreshold (0 for the zero matrix, as numpy).
int numericalRank(const VecD& sv, Eigen::Index rows, Eigen::Index cols);

/// exp(H(p)) with p_i = σ_i / Σσ and H the Shannon entropy in nats (Roy & Vetterli 2007): between 1
/// (one direction) and min(rows, cols) (all σ equal). 0 for the zero matrix.
double effectiveRank(const VecD& sv);

/// Spectral radius max |λ| (0 for an empty list).
double spectralRadius(const std::vector<std::complex<double>>& eig);

/// Everything the spectrum view shows about one matrix.
struct Spectrum {
  VecD singularValues;   ///< descending
  double threshold = 0;  ///< rankThreshold of the matrix
  int numericalRank = 0;
  double effectiveRank = 0;
  std::vector<std::complex<double>> eigenvalues;  ///< empty unless requested (square only)
};

/// From this many rows up, the parts of a spectrum are computed side by side on the OpenMP threads;
/// below, one after another (waking a second thread cost more than it saved: bench_spectrum).
inline constexpr Eigen::Index kParallelSpectrumSize = 256;

/// Singular values, threshold, ranks and (when `withEigenvalues`) eigenvalues of `m`; from
/// kParallelSpectrumSize rows up the singular values and the eigenvalues run side by side.
Spectrum computeSpectrum(const MatD& m, bool withEigenvalues);

/// elementwise exp(S − max S): exp of the scores up to the positive factor e^{max S}, which changes
/// neither the rank nor the effective rank but keeps large scores from overflowing.  [n, n]
MatD expShifted(const MatD& s);

}  // namespace attnlab
