#pragma once
// The numeric building blocks of every model in the program (built-in, GPT-2, BERT, deep stacks).
// Templated on the Eigen matrix type so the forward pass runs in float and the rank-collapse stacks
// run the very same code in double. Rows are tokens throughout.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "core/base/tensor.h"

namespace attnlab {

/// Row-wise softmax in place. Subtracting the row max is exact after normalisation and avoids
/// overflow; entries equal to −∞ (masked) become exactly 0. A row that is entirely −∞ becomes 0.
/// Written as whole-matrix partial reductions rather than a loop over rows: with column-major
/// storage a row is strided, and the row loop was 10–20× slower at n = 256.
template <typename Derived>
void softmaxRowsInPlace(Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  using Col = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  if (m.size() == 0) return;
  Col mx = m.rowwise().maxCoeff();  // [n]
  // A fully masked row has max −∞: shift it by 0 instead so exp gives exact zeros, not NaN.
  mx = mx.unaryExpr([](S v) { return v > -std::numeric_limits<S>::infinity() ? v : S(0); });
  m.colwise() -= mx;
  // Eigen's vectorised exp clamps its argument: in double, exp(−∞) gives 5.6e-309, not 0 (in float it flushes
  // to 0 below −88). Masked entries must be exactly 0 (a causal attention matrix is then exactly triangular, and
  // no denormals slow down the spectra's LAPACK calls 1.5×), so results below the smallest normal number are
  // set to 0 afterwards. Not a select() around exp(): Eigen evaluates that coefficient by coefficient through
  // the scalar expf, 4–5× slower (27% of a head's map at 8,192 tokens).
  m = m.array().exp().matrix();
  m = m.unaryExpr([](S v) { return v < std::numeric_limits<S>::min() ? S(0) : v; });
  Col sum = m.rowwise().sum();
  sum = sum.unaryExpr([](S v) { return v > S(0) ? S(1) / v : S(0); });
  m = (m.array().colwise() * sum.array()).matrix();
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
/// Partial reductions over rows, for the same storage-order reason as softmaxRowsInPlace.
template <typename M, typename V>
M layerNorm(const M& x, const V& gamma, const V& beta, double eps) {
  using S = typename M::Scalar;
  using Col = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  const Col mean = x.rowwise().mean();                        // [n]
  M centred = x.colwise() - mean;                             // [n, d]
  const Col var = centred.array().square().rowwise().mean();  // [n]
  const Col inv = (var.array() + static_cast<S>(eps)).rsqrt();
  centred = (centred.array().colwise() * inv.array()).matrix();
  centred = (centred.array().rowwise() * gamma.transpose().array()).matrix();
  centred.rowwise() += beta.transpose();
  return centred;
}

/// GELU, tanh approximation (GPT-2's gelu_new): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
/// Computed through the identity 0.5·(1 + tanh(a)) = 1/(1 + e^{−2a}): the same function, but Eigen
/// vectorises exp for float and double while tanh in double runs element by element (a fifth of a deep
/// stack's time). For a → −∞ the exponential overflows to +inf and x/inf gives the exact limit 0.
template <typename M>
void geluTanhInPlace(M& x) {
  using S = typename M::Scalar;
  const S c = static_cast<S>(0.7978845608028654);
  x = (x.array() / (S(1) + (S(-2) * c * (x.array() + S(0.044715) * x.array().cube())).exp())).matrix();
}

/// GELU, exact erf form (BERT's gelu): 0.5·x·(1 + erf(x/√2)).
template <typename M>
void geluErfInPlace(M& x) {
  using S = typename M::Scalar;
  x = x.unaryExpr([](S v) { return static_cast<S>(0.5) * v * (S(1) + std::erf(v * static_cast<S>(M_SQRT1_2))); });
}

/// SiLU (swish): x·σ(x) = x / (1 + e^{−x}); for x → −∞ the exponential overflows to +inf and gives 0.
template <typename M>
void siluInPlace(M& x) {
  using S = typename M::Scalar;
  x = (x.array() / (S(1) + (-x.array()).exp())).matrix();
}

/// RMSNorm over the features of each row: x·rsqrt(mean(x²) + eps)·w, or ·(1 + w) for Gemma.
template <typename M, typename V>
M rmsNorm(const M& x, const V& w, double eps, bool addOne) {
  using S = typename M::Scalar;
  using Col = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  const Col inv = (x.array().square().rowwise().mean() + static_cast<S>(eps)).rsqrt();  // [n]
  M y = (x.array().colwise() * inv.array()).matrix();
  if (addOne)
    y = (y.array().rowwise() * (w.transpose().array() + S(1))).matrix();
  else
    y = (y.array().rowwise() * w.transpose().array()).matrix();
  return y;
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

/// f(x) for a row-wise f, `block` rows of x [n, d] at a time when n > 2·block: a long input's MLP then holds its
/// [block, inner] hidden activations instead of [n, inner] (SmolLM2-135M at 8,192 tokens: 18 MB instead of 200 MB of
/// the pass's peak). The rows are the same numbers either way (each output row reads only its input row).
template <typename F>
Mat inRowBlocks(const Mat& x, Eigen::Index block, F f) {
  if (x.rows() <= 2 * block) return f(x);
  Mat out;
  for (Eigen::Index r0 = 0; r0 < x.rows(); r0 += block) {
    const Eigen::Index m = std::min(block, x.rows() - r0);
    const Mat y = f(Mat(x.middleRows(r0, m)));
    if (r0 == 0) out.resize(x.rows(), y.cols());
    out.middleRows(r0, m) = y;
  }
  return out;
}
inline constexpr Eigen::Index kMlpRowBlock = 1024;

}  // namespace attnlab
