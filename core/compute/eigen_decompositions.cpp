#include "core/compute/eigen_decompositions.h"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

namespace attnlab {

VecD eigenSingularValues(const MatD& a) {
  if (a.size() == 0) return VecD();
  Eigen::BDCSVD<MatD> svd(a);
  return svd.singularValues();
}

bool eigenEigenvalues(const MatD& m, std::vector<std::complex<double>>& out) {
  Eigen::EigenSolver<MatD> solver(m, /*computeEigenvectors=*/false);
  if (solver.info() != Eigen::Success) return false;
  const Eigen::VectorXcd ev = solver.eigenvalues();
  out.assign(ev.data(), ev.data() + ev.size());
  return true;
}

void symmetricEigen(const MatD& b, VecD& values, MatD& vectors) {
  const Eigen::SelfAdjointEigenSolver<MatD> eig(b);
  values = eig.eigenvalues();
  vectors = eig.eigenvectors();
}

MatD orthogonalFactor(const MatD& g) {
  const Eigen::HouseholderQR<MatD> qr(g);
  MatD q = qr.householderQ() * MatD::Identity(g.rows(), g.cols());
  const MatD& r = qr.matrixQR();
  for (Eigen::Index c = 0; c < q.cols() && c < r.rows(); ++c)
    if (r(c, c) < 0) q.col(c) = -q.col(c);
  return q;
}

}  // namespace attnlab
