#include "core/variants/performer.h"

#include <cmath>
#include <sstream>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/compute/eigen_decompositions.h"

namespace attnlab {

const char* toString(FeatureKind k) { return k == FeatureKind::Positive ? "positive" : "trig"; }

FeatureKind parseFeatureKind(const std::string& s) {
  if (s == "positive") return FeatureKind::Positive;
  if (s == "trig" || s == "trigonometric") return FeatureKind::Trig;
  throw InputError("unknown feature kind '" + s + "' (use positive or trig)");
}

MatD drawFeatures(int d, int m, bool orthogonal, uint64_t seed) {
  Rng rng(seed);
  const auto gaussian = [&rng](Eigen::Index rows, Eigen::Index cols) {
    MatD g(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < cols; ++j) g(i, j) = rng.normal();
    return g;
  };
  if (!orthogonal) return gaussian(m, d);
  MatD w(m, d);
  for (int done = 0; done < m; done += d) {
    const int rows = std::min(d, m - done);
    const MatD q = orthogonalFactor(gaussian(d, d));  // orthonormal columns, Haar   [d, d]
    for (int i = 0; i < rows; ++i) {
      const double chi = gaussian(d, 1).norm();  // ‖g‖ with g ~ N(0, I_d): a χ_d length
      w.row(done + i) = q.col(i).transpose() * chi;
    }
  }
  return w;
}

MatD positiveFeatures(const MatD& x, const MatD& w, bool stabilize, bool perRow, double epsilon) {
  const Eigen::Index m = w.rows();
  const MatD proj = x * w.transpose();                    // ω_l·x   [n, m]
  const VecD halfNorm = 0.5 * x.rowwise().squaredNorm();  // ‖x‖²/2  [n]
  MatD wx = proj;
  wx.colwise() -= halfNorm;
  if (stabilize && wx.size() > 0) {
    // Subtracting the max of Wx scales a query's features by one constant (or every key's by one
    // constant): cancels in A's row normalisation, keeps exp ≤ e^{-‖x‖²/2}.
    if (perRow)
      wx.colwise() -= proj.rowwise().maxCoeff();
    else
      wx.array() -= proj.maxCoeff();
  }
  return ((wx.array().exp() + epsilon) / std::sqrt(static_cast<double>(m))).matrix();
}

MatD trigFeatures(const MatD& x, const MatD& w, bool stabilize, bool perRow) {
  const Eigen::Index n = x.rows(), m = w.rows();
  const MatD wx = x * w.transpose();              // ω_l·x   [n, m]
  VecD logAmp = 0.5 * x.rowwise().squaredNorm();  // ‖x‖²/2  [n]
  if (stabilize && n > 0) {
    if (perRow)
      logAmp.setZero();  // a query's own e^{‖q‖²/2} cancels in its row
    else
      logAmp.array() -= logAmp.maxCoeff();
  }
  const VecD amp = logAmp.array().exp() / std::sqrt(static_cast<double>(m));
  MatD f(n, 2 * m);
  f.leftCols(m) = amp.asDiagonal() * wx.array().sin().matrix();
  f.rightCols(m) = amp.asDiagonal() * wx.array().cos().matrix();
  return f;
}

PerformerAttention::PerformerAttention(const PerformerConfig& config, std::string name)
    : config_(config), name_(std::move(name)) {}

std::string PerformerAttention::describe() const {
  std::ostringstream s;
  s << "Performer, " << toString(config_.kind) << ", " << (config_.orthogonal ? "orthogonal" : "iid")
    << ", m = " << config_.features;
  if (config_.epsilon > 0 && config_.kind == FeatureKind::Positive) s << ", ε = " << config_.epsilon;
  if (!config_.stabilize) s << ", no max subtraction";
  return s.str();
}

KernelAttention::Features PerformerAttention::features(const MatD& q, const MatD& k) const {
  const int d = static_cast<int>(q.cols());
  // √c on both sides: φ(q√c)·φ(k√c) ≈ exp(q·k·c), c the softmax's logit scale.
  const double c = (config_.scaled ? 1.0 / std::sqrt(static_cast<double>(d)) : 1.0) / config_.temperature;
  const double root = std::sqrt(c);
  const MatD w = drawFeatures(d, config_.features, config_.orthogonal, config_.seed);
  Features f;
  if (config_.kind == FeatureKind::Positive) {
    f.q = positiveFeatures(q * root, w, config_.stabilize, true, config_.epsilon);
    f.k = positiveFeatures(k * root, w, config_.stabilize, false, config_.epsilon);
  } else {
    f.q = trigFeatures(q * root, w, config_.stabilize, true);
    f.k = trigFeatures(k * root, w, config_.stabilize, false);
  }
  return f;
}

}  // namespace attnlab
