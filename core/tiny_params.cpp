#include "core/tiny_params.h"

#include <cmath>

#include "core/rng.h"

namespace attnlab {

TinyParams<float> initTinyParams(const TinyConfig& c) {
  validate(c);
  Rng rng(mixSeed(c.seed, 0x7419));
  using M = Eigen::MatrixXf;
  auto normal = [&](int rows, int cols, double std) {
    M m(rows, cols);
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i) m(i, j) = static_cast<float>(rng.normal() * std);
    return m;
  };
  const int d = c.dModel, inner = c.dInner();
  const double s = 1.0 / std::sqrt(static_cast<double>(d));
  TinyParams<float> p;
  p.tokEmb = normal(c.vocab, d, 1.0);
  p.posEmb = normal(c.context, d, 1.0);
  for (int l = 0; l < c.layers; ++l) {
    TinyLayerParams<float> L;
    if (c.layerNorm) L.ln1Gamma = M::Ones(d, 1), L.ln1Beta = M::Zero(d, 1);
    L.wq = normal(d, d, s), L.wk = normal(d, d, s), L.wv = normal(d, d, s), L.wo = normal(d, d, s);
    if (c.mlp) {
      if (c.layerNorm) L.ln2Gamma = M::Ones(d, 1), L.ln2Beta = M::Zero(d, 1);
      L.w1 = normal(d, inner, s), L.b1 = M::Zero(inner, 1);
      L.w2 = normal(inner, d, 1.0 / std::sqrt(static_cast<double>(inner))), L.b2 = M::Zero(d, 1);
    }
    p.layers.push_back(std::move(L));
  }
  if (c.layerNorm) p.lnfGamma = M::Ones(d, 1), p.lnfBeta = M::Zero(d, 1);
  p.unembed = normal(d, c.vocab, s);
  return p;
}

std::vector<std::pair<std::string, std::pair<int, int>>> tinyTensorShapes(const TinyConfig& c) {
  std::vector<std::pair<std::string, std::pair<int, int>>> shapes;
  const TinyParams<float> p = initTinyParams(c);
  p.forEach([&](const std::string& name, const Eigen::MatrixXf& t) {
    shapes.push_back({name, {static_cast<int>(t.rows()), static_cast<int>(t.cols())}});
  });
  return shapes;
}

}  // namespace attnlab
