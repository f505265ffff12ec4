#include "core/collapse/collapse_metrics.h"

#include <cmath>

#include <Eigen/SVD>

namespace attnlab {

MatD tokenResidual(const MatD& x) {
  if (x.rows() == 0) return x;
  // Shifted mean: x̄ = x_0 + mean_i(x_i − x_0), so res = (x_i − x_0) − mean_j(x_j − x_0)  [n, d]
  MatD diff = x.rowwise() - x.row(0);
  const Eigen::RowVectorXd shift = diff.colwise().mean();
  diff.rowwise() -= shift;
  return diff;
}

double norm1(const MatD& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().colwise().sum().maxCoeff(); }
double normInf(const MatD& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().rowwise().sum().maxCoeff(); }
double compositeNorm(const MatD& m) { return std::sqrt(norm1(m) * normInf(m)); }

double relativeResidual(const MatD& x, ResidualNorm norm) {
  const MatD r = tokenResidual(x);
  const double num = norm == ResidualNorm::Composite ? compositeNorm(r) : r.norm();
  const double den = norm == ResidualNorm::Composite ? compositeNorm(x) : x.norm();
  return den > 0 ? num / den : 0.0;
}

MatD tokenCosineSimilarity(const MatD& x) {
  const VecD norms = x.rowwise().norm();
  MatD unit = x;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    if (norms(i) > 0)
      unit.row(i) /= norms(i);
    else
      unit.row(i).setZero();
  }
  MatD c(x.rows(), x.rows());
  c.noalias() = unit * unit.transpose();  // [n, n]
  // Rounding can push a unit vector's cosine a hair past ±1.
  return c.cwiseMax(-1.0).cwiseMin(1.0);
}

double rank1Residual(const MatD& m) {
  const VecD s = singularValues(m);
  if (s.size() == 0 || !(s(0) > 0)) return 0.0;
  // The tail sum on its own, not 1 − σ₁²/Σσ²: the latter cancels to 0 long before the tail does.
  const double tail = s.tail(s.size() - 1).squaredNorm();
  return std::sqrt(tail / s.squaredNorm());
}

}  // namespace attnlab
