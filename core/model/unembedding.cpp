#include "core/model/unembedding.h"

#include <algorithm>
#include <cmath>

#include "core/model/blocks.h"

namespace attnlab {

Mat Unembedding::transformed(const Mat& x) const {
  if (!hasTransform()) return x;
  Mat y = x * transformWeight.transpose();  // [n, d]·[d, d]: W_T is [out, in]
  y.rowwise() += transformBias.transpose();
  switch (transformActivation) {
    case Activation::GeluErf:
      geluErfInPlace(y);
      break;
    case Activation::GeluTanh:
      geluTanhInPlace(y);
      break;
    case Activation::Relu:
      reluInPlace(y);
      break;
  }
  return y;
}

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
  const Mat normed = normalise(transformed(x));  // [n, d]
  Mat out(x.rows(), vocab);                      // [n, vocab]
  // Blocks of the vocabulary side by side on the OpenMP threads (Eigen's own threading is off in this
  // build): the product is bound by reading W_U (154 MB for GPT-2 small), and a second core halves it.
  // With rows of W_U contiguous (every model here) a row-major view vectorises; the general strided view
  // does not (130 ms for one GPT-2-small row against a few ms).
  using RowMajorView =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;
  constexpr Eigen::Index kBlock = 4096;
  const auto blocks = static_cast<int>((vocab + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) {
    const Eigen::Index v0 = b * kBlock, len = std::min(kBlock, vocab - v0);
    if (colStride == 1) {
      const RowMajorView w(data, vocab, d, Eigen::OuterStride<>(rowStride));
      out.middleCols(v0, len).noalias() = normed * w.middleRows(v0, len).transpose();
    } else {
      out.middleCols(v0, len).noalias() = normed * weights().middleRows(v0, len).transpose();
    }
  }
  if (bias.size() > 0) out.rowwise() += bias.transpose();
  if (softcap > 0.0) {
    const float c = static_cast<float>(softcap);
    out = out.unaryExpr([c](float s) { return std::tanh(s / c) * c; });
  }
  return out;
}

}  // namespace attnlab
