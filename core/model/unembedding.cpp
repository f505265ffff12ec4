#include "core/model/unembedding.h"

#include <cmath>

namespace attnlab {

Vec Unembedding::scales(const Mat& x) const {
  if (norm == Norm::None) return Vec::Ones(x.rows());
  if (norm == Norm::Rms) return (x.array().square().rowwise().mean() + static_cast<float>(eps)).sqrt();
  const Vec mean = x.rowwise().mean();
  const Vec var = (x.colwise() - mean).array().square().rowwise().mean();
  return (var.array() + static_cast<float>(eps)).sqrt();
}

Mat Unembedding::normalise(const Mat& x) const {
  if (norm == Norm::None) return x;
  const Vec sigma = scales(x);  // [n]
  Mat y = x;
  if (norm == Norm::Layer) y.colwise() -= x.rowwise().mean();
  y = (y.array().colwise() / sigma.array()).matrix();
  y = (y.array().rowwise() * gamma.transpose().array()).matrix();
  if (beta.size() > 0) y.rowwise() += beta.transpose();
  return y;
}

Mat Unembedding::logits(const Mat& x) const {
  const Mat normed = normalise(x);  // [n, d]
  Mat out(x.rows(), vocab);         // [n, vocab]
  if (colStride == 1 && rowStride == d) {
    // Rows of W_U contiguous (every model here): a plain map vectorises; the strided view does not
    // (130 ms for one GPT-2-small row against a few ms).
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    out.noalias() = normed * Eigen::Map<const RowMajor>(data, vocab, d).transpose();
  } else {
    out.noalias() = normed * weights().transpose();
  }
  if (bias.size() > 0) out.rowwise() += bias.transpose();
  if (softcap > 0.0) {
    const float c = static_cast<float>(softcap);
    out = out.unaryExpr([c](float s) { return std::tanh(s / c) * c; });
  }
  return out;
}

}  // namespace attnlab
