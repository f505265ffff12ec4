#pragma once
// Eigen's dense decompositions, instantiated in this one unit (eigen_decompositions.cpp) for the double matrices
// the analyses use. Each instantiation of BDCSVD, EigenSolver, SelfAdjointEigenSolver or HouseholderQR costs
// 5–20 s of compile time; before, every unit that called one (spectra, metrics, the atlas's copying and similarity
// scores, the Performer's and the feature maps' orthogonal draws) compiled its own copy.
#include <complex>
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

/// Singular values of `a` by Eigen's BDCSVD (Jacobi below 16 columns, divide and conquer above), descending.
VecD eigenSingularValues(const MatD& a);

/// Eigenvalues of the square matrix `m` by Eigen's EigenSolver (no vectors), in its order; false when the
/// iteration did not converge (`out` then unchanged).
bool eigenEigenvalues(const MatD& m, std::vector<std::complex<double>>& out);

/// Eigenvalues (ascending) and the matching unit eigenvectors (columns) of the symmetric matrix `b`.
void symmetricEigen(const MatD& b, VecD& values, MatD& vectors);

/// The Q of a Householder QR of the square matrix `g`, each column's sign flipped so that R's diagonal is
/// non-negative: for a Gaussian `g`, a Haar-distributed orthogonal matrix (Householder's own signs bias it).
MatD orthogonalFactor(const MatD& g);

}  // namespace attnlab
