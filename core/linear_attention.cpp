#include "core/linear_attention.h"

namespace attnlab {

LinearAttention::LinearAttention(FeatureMap map, bool stabilize) : map_(map), stabilize_(stabilize) {}

std::string LinearAttention::name() const {
  switch (map_) {
    case FeatureMap::EluPlusOne: return "linear-elu";
    case FeatureMap::Exp: return "linear-exp";
    case FeatureMap::Relu: return "linear-relu";
  }
  return "linear";
}

std::string LinearAttention::describe() const {
  switch (map_) {
    case FeatureMap::EluPlusOne: return "linear, φ = 1 + elu";
    case FeatureMap::Exp: return "linear, φ = exp";
    case FeatureMap::Relu: return "linear, φ = relu";
  }
  return "linear";
}

KernelAttention::Features LinearAttention::features(const MatD& q, const MatD& k) const {
  Features f;
  switch (map_) {
    case FeatureMap::EluPlusOne: {
      const auto elu1 = [](double x) { return x >= 0 ? 1.0 + x : std::exp(x); };
      f.q = q.unaryExpr(elu1);
      f.k = k.unaryExpr(elu1);
      break;
    }
    case FeatureMap::Exp: {
      // φ(q_i) scaled by e^{−max q_i} and every φ(k_j) by e^{−max K}: constants per query row and
      // over all keys, so they cancel in the row normalisation.
      const VecD qShift = stabilize_ ? VecD(q.rowwise().maxCoeff()) : VecD::Zero(q.rows());
      const double kShift = stabilize_ && k.size() > 0 ? k.maxCoeff() : 0.0;
      f.q = (q.colwise() - qShift).array().exp().matrix();
      f.k = (k.array() - kShift).exp().matrix();
      break;
    }
    case FeatureMap::Relu:
      f.q = q.cwiseMax(0.0);
      f.k = k.cwiseMax(0.0);
      break;
  }
  return f;
}

}  // namespace attnlab
