#include "core/variants/feature_maps.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/compute/eigen_decompositions.h"
#include "core/model/blocks.h"
#include "core/spectra/spectrum.h"

namespace attnlab {

std::vector<FeatureMap> featureMaps() {
  return {FeatureMap::EluPlusOne, FeatureMap::Exp, FeatureMap::Relu, FeatureMap::Performer};
}

const char* featureMapName(FeatureMap f) {
  switch (f) {
    case FeatureMap::EluPlusOne:
      return "1+elu";
    case FeatureMap::Exp:
      return "exp";
    case FeatureMap::Relu:
      return "relu";
    case FeatureMap::Performer:
      return "performer";
  }
  return "?";
}

double featureScalar(FeatureMap f, double x) {
  switch (f) {
    case FeatureMap::EluPlusOne:
      return x > 0 ? 1.0 + x : std::exp(x);  // 1 + elu(x)
    case FeatureMap::Exp:
      return std::exp(x);
    case FeatureMap::Relu:
      return x > 0 ? x : 0.0;
    case FeatureMap::Performer:
      break;
  }
  throw InputError("Performer's features are not an elementwise function");
}

MatD performerOmega(int d, int m, uint64_t seed, bool orthogonal) {
  if (d < 1 || m < 1) throw InputError("Performer needs d ≥ 1 and m ≥ 1 features");
  Rng rng(seed);
  MatD omega(m, d);
  if (!orthogonal) {
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < d; ++c) omega(r, c) = rng.normal();
    return omega;
  }
  for (int start = 0; start < m; start += d) {
    MatD g(d, d);
    for (int r = 0; r < d; ++r)
      for (int c = 0; c < d; ++c) g(r, c) = rng.normal();
    // Q·diag(sign(R_ii)) is Haar-distributed; Householder's own sign convention is not (it biases
    // every direction towards one half-space, and with it the kernel estimate).
    const MatD qmat = orthogonalFactor(g);  // orthonormal columns  [d, d]
    for (int r = 0; r < d && start + r < m; ++r) {
      double len2 = 0;  // χ_d length of a fresh Gaussian vector
      for (int c = 0; c < d; ++c) {
        const double z = rng.normal();
        len2 += z * z;
      }
      omega.row(start + r) = qmat.col(r).transpose() * std::sqrt(len2);
    }
  }
  return omega;
}

MatD performerFeatures(const MatD& x, const MatD& omega) {
  MatD f = x * omega.transpose();                  // ω_r·x_i   [n, m]
  f.colwise() -= 0.5 * x.rowwise().squaredNorm();  // − ‖x_i‖²/2
  return f.array().exp().matrix() / std::sqrt(static_cast<double>(omega.rows()));
}

MatD applyFeatureMap(FeatureMap f, const MatD& x, const MatD* omega) {
  const MatD scaled = x * std::pow(static_cast<double>(std::max<Eigen::Index>(1, x.cols())), -0.25);
  if (f == FeatureMap::Performer) {
    if (!omega || omega->cols() != x.cols()) throw InputError("Performer features need ω with d columns");
    return performerFeatures(scaled, *omega);
  }
  return scaled.unaryExpr([f](double v) { return featureScalar(f, v); });
}

MatD linearAttention(const MatD& phiQ, const MatD& phiK, bool causal, int* emptyRows) {
  MatD a = phiQ * phiK.transpose();  // φ(q_i)·φ(k_j)   [n, n]
  int empty = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    if (causal)
      for (Eigen::Index j = i + 1; j < a.cols(); ++j) a(i, j) = 0;
    const double z = a.row(i).sum();
    if (z > 0) {
      a.row(i) /= z;
    } else {
      a.row(i).setZero();
      ++empty;
    }
  }
  if (emptyRows) *emptyRows = empty;
  return a;
}

double pearson(const MatD& a, const MatD& b) {
  const double n = static_cast<double>(a.size());
  if (n < 2 || a.size() != b.size()) return 0;
  const Eigen::ArrayXXd da = a.array() - a.mean(), db = b.array() - b.mean();
  const double den = std::sqrt((da * da).sum() * (db * db).sum());
  return den > 0 ? (da * db).sum() / den : 0.0;
}

namespace {

void fillRankAndEntropy(const MatD& attention, int* rank, double* eff, double* entropy) {
  const VecD sv = singularValues(attention);
  *rank = numericalRank(sv, attention.rows(), attention.cols());
  *eff = effectiveRank(sv);
  *entropy = meanRowEntropy(attention);
}

}  // namespace

FeatureMapComparison compareFeatureMaps(const MatD& q, const MatD& k, bool causal, const FeatureMapSettings& s,
                                        const RunControl& control) {
  if (q.rows() != k.rows() || q.cols() != k.cols() || q.cols() == 0)
    throw InputError("the feature-map comparison needs Q and K of the same shape [n, d]");
  FeatureMapComparison c;
  c.n = static_cast<int>(q.rows());
  c.dHead = static_cast<int>(q.cols());
  const std::vector<FeatureMap> maps = featureMaps();
  const double steps = static_cast<double>(maps.size() + 1);
  control.checkpoint(0.0);
  MatD scores = (q * k.transpose()) / std::sqrt(static_cast<double>(c.dHead));  // q·k/√d   [n, n]
  // Shifted by a constant only where exp would overflow: correlation and attention ignore the factor.
  const double mx = scores.maxCoeff();
  c.exact = (scores.array() - (mx > 700 ? mx : 0.0)).exp().matrix();
  c.softmax = scores;
  if (causal) applyCausalMask(c.softmax);
  softmaxRowsInPlace(c.softmax);
  fillRankAndEntropy(c.softmax, &c.softmaxRank, &c.softmaxEffectiveRank, &c.softmaxEntropy);
  control.checkpoint(1 / steps);

  const int m = s.performerFeatures > 0 ? s.performerFeatures : 4 * c.dHead;
  const MatD omega = performerOmega(c.dHead, m, s.performerSeed, s.orthogonal);
  for (std::size_t i = 0; i < maps.size(); ++i) {
    FeatureMapEntry e;
    e.map = maps[i];
    const MatD pq = applyFeatureMap(e.map, q, &omega), pk = applyFeatureMap(e.map, k, &omega);
    e.features = static_cast<int>(pq.cols());
    e.kernel = pq * pk.transpose();  // [n, n]
    const double kk = e.kernel.squaredNorm();
    e.fitScale = kk > 0 ? (c.exact.array() * e.kernel.array()).sum() / kk : 1.0;
    e.correlation = pearson(c.exact, e.kernel);
    e.attention = linearAttention(pq, pk, causal, &e.emptyRows);
    fillRankAndEntropy(e.attention, &e.numericalRank, &e.effectiveRank, &e.entropy);
    c.maps.push_back(std::move(e));
    control.checkpoint((i + 2) / steps);
  }
  return c;
}

}  // namespace attnlab
