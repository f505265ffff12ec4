#include "core/train/tiny_params.h"

#include <cmath>

#include "core/base/rng.h"

namespace attnlab {

TinyParams<float> tinyParamsLayout(const TinyConfig& c) {
  validate(c);
  using M = Eigen::MatrixXf;
  const int d = c.dModel, inner = c.dInner();
  TinyParams<float> p;
  p.tokEmb = M::Zero(c.vocab, d);
  p.posEmb = M::Zero(c.context, d);
  for (int l = 0; l < c.layers; ++l) {
    TinyLayerParams<float> L;
    if (c.layerNorm) L.ln1Gamma = M::Ones(d, 1), L.ln1Beta = M::Zero(d, 1);
    L.wq = M::Zero(d, d), L.wk = M::Zero(d, d), L.wv = M::Zero(d, d), L.wo = M::Zero(d, d);
    if (c.mlp) {
      if (c.layerNorm) L.ln2Gamma = M::Ones(d, 1), L.ln2Beta = M::Zero(d, 1);
      L.w1 = M::Zero(d, inner), L.b1 = M::Zero(inner, 1);
      L.w2 = M::Zero(inner, d), L.b2 = M::Zero(d, 1);
    }
    p.layers.push_back(std::move(L));
  }
  if (c.layerNorm) p.lnfGamma = M::Ones(d, 1), p.lnfBeta = M::Zero(d, 1);
  p.unembed = M::Zero(d, c.vocab);
  return p;
}

TinyParams<float> initTinyParams(const TinyConfig& c) {
  TinyParams<float> p = tinyParamsLayout(c);
  Rng rng(mixSeed(c.seed, 0x7419));
  // Column by column, in this order: the draws (and so every saved model) depend on it.
  auto normal = [&](Eigen::MatrixXf& m, double std) {
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i) m(i, j) = static_cast<float>(rng.normal() * std);
  };
  const double s = 1.0 / std::sqrt(static_cast<double>(c.dModel));
  normal(p.tokEmb, 1.0);
  normal(p.posEmb, 1.0);
  for (TinyLayerParams<float>& L : p.layers) {
    normal(L.wq, s), normal(L.wk, s), normal(L.wv, s), normal(L.wo, s);
    if (c.mlp) normal(L.w1, s), normal(L.w2, 1.0 / std::sqrt(static_cast<double>(c.dInner())));
  }
  normal(p.unembed, s);
  return p;
}

std::vector<std::pair<std::string, std::pair<int, int>>> tinyTensorShapes(const TinyConfig& c) {
  std::vector<std::pair<std::string, std::pair<int, int>>> shapes;
  const TinyParams<float> p = tinyParamsLayout(c);
  p.forEach([&](const std::string& name, const Eigen::MatrixXf& t) {
    shapes.push_back({name, {static_cast<int>(t.rows()), static_cast<int>(t.cols())}});
  });
  return shapes;
}

}  // namespace attnlab
