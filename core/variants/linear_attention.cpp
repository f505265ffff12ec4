#include "core/variants/linear_attention.h"

namespace attnlab {

LinearAttention::LinearAttention(FeatureMap map, bool stabilize) : map_(map), stabilize_(stabilize) {}

std::string LinearAttention::name() const {
  switch (map_) {
    case FeatureMap::EluPlusOne:
      return "linear-elu";
    case FeatureMap::Exp:
      return "linear-exp";
    case FeatureMap::Relu:
      return "linear-relu";
  }
  return "linear";
}

std::string LinearAttention::describe() const {
  switch (map_) {
    case FeatureMap::EluPlusOne:
      return "linear, φ = 1 + elu";
    case FeatureMap::Exp:
      return "linear, φ = exp";
    case FeatureMap::Relu:
      return "linear, φ = relu";
  }
  return "linear";
}

KernelAttention::Features LinearAttention::features(const MatD& q, const MatD& k) const {
  Features f;
  switch (map_) {
    case FeatureMap::EluPlusOne: {
      // 1 + x for x ≥ 0, eˣ below; array select keeps it vectorised (exp of positive x is discarded,
      // and cannot overflow to NaN: select picks the branch, it does not multiply).
      f.q = (q.array() >= 0).select(q.array() + 1.0, q.array().min(0.0).exp()).matrix();
      f.k = (k.array() >= 0).select(k.array() + 1.0, k.array().min(0.0).exp()).matrix();
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
