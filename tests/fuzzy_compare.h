#pragma once
// Shared fuzzy comparison for Eigen matrices in Qt Test, after LabPlot's helper: reports the worst
// entry (index, both values) instead of a bare "false".
#include <QtTest>

#include <Eigen/Dense>
#include <cmath>
#include <sstream>

namespace attnlab::test {

/// |a − b| ≤ tol · max(1, |b|) entrywise; shapes must match.
template <typename A, typename B>
bool matricesClose(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b, double tol, std::string* why) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) {
    std::ostringstream s;
    s << "shape " << a.rows() << "x" << a.cols() << " vs " << b.rows() << "x" << b.cols();
    *why = s.str();
    return false;
  }
  double worst = 0;
  Eigen::Index wi = 0, wj = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double x = static_cast<double>(a(i, j)), y = static_cast<double>(b(i, j));
      const double err = std::abs(x - y) / std::max(1.0, std::abs(y));
      if (!(err <= worst) || std::isnan(err)) {
        worst = std::isnan(err) ? INFINITY : err;
        wi = i;
        wj = j;
      }
    }
  if (worst <= tol) return true;
  std::ostringstream s;
  s << "entry (" << wi << "," << wj << "): " << a(wi, wj) << " vs " << b(wi, wj) << ", relative error " << worst
    << " > " << tol;
  *why = s.str();
  return false;
}

}  // namespace attnlab::test

#define ATTNLAB_COMPARE_MATRICES(a, b, tol)                                \
  do {                                                                     \
    std::string why_;                                                      \
    if (!attnlab::test::matricesClose((a), (b), (tol), &why_))             \
      QFAIL(qPrintable(QString("%1 ≠ %2: %3").arg(#a, #b, why_.c_str()))); \
  } while (0)
