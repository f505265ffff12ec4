#include "core/spectrum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include "core/errors.h"
#include "core/lapack_spectrum.h"

namespace attnlab {

std::vector<std::complex<double>> eigenvalues(const MatD& m) {
  if (m.rows() != m.cols())
    throw InputError("eigenvalues need a square matrix, got " + std::to_string(m.rows()) + "x" +
                     std::to_string(m.cols()));
  std::vector<std::complex<double>> out;
  if (m.size() == 0) return out;
  std::optional<std::vector<std::complex<double>>> fast;
  if (m.rows() >= kLapackMinSize) fast = lapackEigenvalues(m);  // see lapack_spectrum.h
  if (fast) {
    out = std::move(*fast);
  } else {
    Eigen::EigenSolver<MatD> solver(m, /*computeEigenvectors=*/false);
    if (solver.info() != Eigen::Success) throw InputError("the eigenvalue iteration did not converge");
    const Eigen::VectorXcd ev = solver.eigenvalues();
    out.assign(ev.data(), ev.data() + ev.size());
  }
  std::stable_sort(out.begin(), out.end(), [](const std::complex<double>& a, const std::complex<double>& b) {
    return std::abs(a) > std::abs(b);
  });
  return out;
}

double rankThreshold(const VecD& sv, Eigen::Index rows, Eigen::Index cols) {
  if (sv.size() == 0) return 0;
  return sv.maxCoeff() * static_cast<double>(std::max(rows, cols)) * std::numeric_limits<double>::epsilon();
}

int numericalRank(const VecD& sv, Eigen::Index rows, Eigen::Index cols) {
  const double tol = rankThreshold(sv, rows, cols);
  return static_cast<int>((sv.array() > tol).count());
}

double effectiveRank(const VecD& sv) {
  const double total = sv.sum();
  if (!(total > 0)) return 0;
  double h = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i) {
    const double p = sv(i) / total;
    if (p > 0) h -= p * std::log(p);
  }
  return std::exp(h);
}

double spectralRadius(const std::vector<std::complex<double>>& eig) {
  double r = 0;
  for (const auto& z : eig) r = std::max(r, std::abs(z));
  return r;
}

Spectrum computeSpectrum(const MatD& m, bool withEigenvalues) {
  Spectrum s;
  s.singularValues = singularValues(m);
  s.threshold = rankThreshold(s.singularValues, m.rows(), m.cols());
  s.numericalRank = numericalRank(s.singularValues, m.rows(), m.cols());
  s.effectiveRank = effectiveRank(s.singularValues);
  if (withEigenvalues) s.eigenvalues = eigenvalues(m);
  return s;
}

MatD expShifted(const MatD& s) {
  if (s.size() == 0) return s;
  const double mx = s.maxCoeff();
  return (s.array() - mx).exp().matrix();
}

}  // namespace attnlab
