#pragma once
// LayerNorm forward and backward over the rows of a matrix, in the scalar type S, shared by the trainable
// nets (tiny_net.h's pre-LN decoder, tiny_encdec_net.h's post-LN encoder–decoder).
#include <Eigen/Dense>

namespace attnlab {

/// LayerNorm's ε, as in GPT-2 (and nn.LayerNorm's default, which Marian and BART use).
inline constexpr double kTinyLayerNormEps = 1e-5;

template <typename S>
struct TinyLayerNormCache {
  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> xhat;  ///< normalised input  [rows, d]
  Eigen::Matrix<S, Eigen::Dynamic, 1> invStd;             ///< 1/√(var + ε) per row  [rows]
};

/// Mean of each row  [rows] as a matrix–vector product: with column-major storage Eigen's
/// rowwise().mean() walks each row with a stride and was a sixth of a training step.
template <typename S>
Eigen::Matrix<S, Eigen::Dynamic, 1> tinyRowMeans(const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& x) {
  Eigen::Matrix<S, Eigen::Dynamic, 1> m(x.rows());
  m.noalias() = x * Eigen::Matrix<S, Eigen::Dynamic, 1>::Constant(x.cols(), S(1) / static_cast<S>(x.cols()));
  return m;
}

/// LayerNorm over each row (as blocks.h's layerNorm), keeping what the backward pass needs. γ, β: [d, 1].
template <typename S>
Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> tinyLayerNormForward(
    const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& x,
    const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& gamma,
    const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& beta, TinyLayerNormCache<S>& c) {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const Eigen::Matrix<S, Eigen::Dynamic, 1> mean = tinyRowMeans<S>(x);                                 // [rows]
  M centred = x.colwise() - mean;                                                                      // [rows, d]
  const Eigen::Matrix<S, Eigen::Dynamic, 1> var = tinyRowMeans<S>(centred.array().square().matrix());  // [rows]
  c.invStd = (var.array() + static_cast<S>(kTinyLayerNormEps)).rsqrt();
  c.xhat = (centred.array().colwise() * c.invStd.array()).matrix();
  M y = (c.xhat.array().rowwise() * gamma.col(0).transpose().array()).matrix();
  y.rowwise() += beta.col(0).transpose();
  return y;
}

/// dx = r·(dx̂ − mean(dx̂) − x̂·mean(dx̂∘x̂)) with dx̂ = dy∘γ, r = 1/√(var + ε); adds dγ, dβ.
template <typename S>
Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> tinyLayerNormBackward(
    const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& dy,
    const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& gamma, const TinyLayerNormCache<S>& c,
    Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& dGamma, Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& dBeta) {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  dGamma.col(0) += (dy.array() * c.xhat.array()).colwise().sum().transpose().matrix();
  dBeta.col(0) += dy.colwise().sum().transpose();
  const M dxhat = (dy.array().rowwise() * gamma.col(0).transpose().array()).matrix();
  const Eigen::Matrix<S, Eigen::Dynamic, 1> m1 = tinyRowMeans<S>(dxhat);
  const Eigen::Matrix<S, Eigen::Dynamic, 1> m2 = tinyRowMeans<S>(dxhat.cwiseProduct(c.xhat));
  M dx = dxhat.colwise() - m1;
  dx -= (c.xhat.array().colwise() * m2.array()).matrix();
  return (dx.array().colwise() * c.invStd.array()).matrix();
}

}  // namespace attnlab
