#pragma once
// The numeric building blocks of every model in the program (built-in, GPT-2, BERT, deep stacks).
// Templated on the Eigen matrix type so the forward pass runs in float and the rank-collapse stacks
// run the very same code in double. Rows are tokens throughout.
#include <cmath>
#include <limits>

#include <Eigen/Dense>

namespace attnlab {

/// Row-wise softmax in place. Subtracting the row max is exact after normalisation and avoids
/// overflow; entries equal to −∞ (masked) become exactly 0. A row that is entirely −∞ becomes 0.
template <typename Derived>
void softmaxRowsInPlace(Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    auto row = m.row(i);
    const S mx = row.maxCoeff();
    if (!(mx > -std::numeric_limits<S>::infinity())) {
      row.setZero();
      continue;
    }
    row = (row.array() - mx).exp();
    row /= row.sum();
  }
}

/// Sets entries above the diagonal to −∞ (query i may not see key j > i).
template <typename Derived>
void applyCausalMask(Eigen::MatrixBase<Derived>& scores) {
  using S = typename Derived::Scalar;
  const Eigen::Index n = scores.rows();
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < scores.cols(); ++j) scores(i, j) = -std::numeric_limits<S>::infinity();
}

/// LayerNorm over features of each row: (x − mean)/√(var + eps)·γ + β, var the biased variance.
template <typename M, typename V>
M layerNorm(const M& x, const V& gamma, const V& beta, double eps) {
  using S = typename M::Scalar;
  M out(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto row = x.row(i).array();
    const S mean = row.mean();
    const S var = (row - mean).square().mean();
    const S inv = S(1) / std::sqrt(var + static_cast<S>(eps));
    out.row(i) = ((row - mean) * inv) * gamma.transpose().array() + beta.transpose().array();
  }
  return out;
}

/// GELU, tanh approximation (GPT-2's gelu_new): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
template <typename M>
void geluTanhInPlace(M& x) {
  using S = typename M::Scalar;
  const S c = static_cast<S>(0.7978845608028654);
  x = (S(0.5) * x.array() * (S(1) + (c * (x.array() + S(0.044715) * x.array().cube())).tanh())).matrix();
}

/// GELU, exact erf form (BERT's gelu): 0.5·x·(1 + erf(x/√2)).
template <typename M>
void geluErfInPlace(M& x) {
  using S = typename M::Scalar;
  x = x.unaryExpr([](S v) { return static_cast<S>(0.5) * v * (S(1) + std::erf(v * static_cast<S>(M_SQRT1_2))); });
}

template <typename M>
void reluInPlace(M& x) {
  x = x.cwiseMax(typename M::Scalar(0));
}

/// y = x·W + b with W [in, out] and b a column vector [out] (or empty). W and b may be any Eigen
/// matrix expression, e.g. a map of checkpoint weights in either storage order.
template <typename M, typename W, typename V>
M affine(const M& x, const Eigen::MatrixBase<W>& w, const Eigen::MatrixBase<V>& b) {
  M y(x.rows(), w.cols());
  y.noalias() = x * w;
  if (b.size() > 0) y.rowwise() += b.transpose();
  return y;
}

}  // namespace attnlab
