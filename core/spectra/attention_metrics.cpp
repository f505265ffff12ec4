#include "core/spectra/attention_metrics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include "core/compute/eigen_decompositions.h"
#include "core/compute/lapack_spectrum.h"

namespace attnlab {

VecD singularValues(const MatD& a) {
  if (a.size() == 0) return VecD();
  if (std::min(a.rows(), a.cols()) >= kLapackMinSize)
    if (auto s = lapackSingularValues(a)) return *s;  // see lapack_spectrum.h; Eigen is the fallback
  return eigenSingularValues(a);                      // BDCSVD: Jacobi below 16 columns, divide and conquer above
}

int numericalRank(const MatD& a) {
  const VecD s = singularValues(a);
  if (s.size() == 0) return 0;
  const double tol =
      s.maxCoeff() * static_cast<double>(std::max(a.rows(), a.cols())) * std::numeric_limits<double>::epsilon();
  return static_cast<int>((s.array() > tol).count());
}

double meanRowEntropy(const MatD& a) {
  if (a.rows() == 0) return 0;
  double total = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const double mass = a.row(i).cwiseAbs().sum();
    if (mass <= 0) continue;  // an all-zero row carries no distribution: entropy 0
    double h = 0;
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double p = std::abs(a(i, j)) / mass;
      if (p > 0) h -= p * std::log(p);
    }
    total += h;
  }
  return total / static_cast<double>(a.rows());
}

double topKSparsity(const MatD& a, int k) {
  if (a.rows() == 0 || a.cols() == 0) return 0;
  const Eigen::Index kk = std::clamp<Eigen::Index>(k, 1, a.cols());
  std::vector<double> row(static_cast<std::size_t>(a.cols()));
  double total = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j) row[static_cast<std::size_t>(j)] = std::abs(a(i, j));
    const double mass = std::accumulate(row.begin(), row.end(), 0.0);
    if (mass <= 0) continue;
    std::nth_element(row.begin(), row.begin() + (kk - 1), row.end(), std::greater<double>());
    total += std::accumulate(row.begin(), row.begin() + kk, 0.0) / mass;
  }
  return total / static_cast<double>(a.rows());
}

double relativeFrobeniusError(const MatD& approx, const MatD& reference) {
  const double diff = (approx - reference).norm(), ref = reference.norm();
  if (ref == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return diff / ref;
}

double meanSquaredError(const MatD& a, const MatD& b) {
  if (a.size() == 0) return 0;
  return (a - b).squaredNorm() / static_cast<double>(a.size());
}

}  // namespace attnlab
