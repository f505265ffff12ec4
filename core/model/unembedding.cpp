#include "core/model/unembedding.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/compute/packed_gemm.h"

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

namespace {

/// Vocabulary rows per block: 8 panels of core/compute/packed_gemm.h, 8·12·d floats (295 KB at d = 768),
/// so a block's panels stay in L2 between its packing and its product.
constexpr Eigen::Index kPackedBlock = 8 * kPanelCols;

/// out[:, v0 .. v0 + len) = normed · W_U[v0 .. v0 + len)ᵀ with W_U's rows contiguous (`rowStride` apart): the
/// block's rows are transposed into panels in `panels` (zero past the last row) and the packed kernel multiplies
/// them by all of normed's rows at once, so W_U is read from memory once whatever the number of rows.
void packedBlock(const float* w, Eigen::Index rowStride, const Mat& normed, Eigen::Index v0, Eigen::Index len,
                 std::vector<float>& panels, Mat& out) {
  const Eigen::Index d = normed.cols(), count = (len + kPanelCols - 1) / kPanelCols;
  panels.assign(static_cast<std::size_t>(count * kPanelCols * d), 0.0f);
  for (Eigen::Index t = 0; t < len; ++t) {
    const float* row = w + (v0 + t) * rowStride;
    float* dst = panels.data() + (t / kPanelCols) * d * kPanelCols + t % kPanelCols;
    for (Eigen::Index k = 0; k < d; ++k) dst[k * kPanelCols] = row[k];
  }
  PackedProduct p;
  p.a = normed.data();
  p.lda = normed.rows();
  p.panels = panels.data();
  p.c = out.data() + v0 * out.rows();
  p.ldc = out.rows();
  p.rows = normed.rows();
  p.inner = d;
  p.cols = len;
  packedGemm(p, 0, count);
}

}  // namespace

Mat Unembedding::logits(const Mat& x) const {
  const Mat normed = normalise(x);  // [n, d]
  Mat out(x.rows(), vocab);         // [n, vocab]
  // The product is bound by reading W_U (154 MB for GPT-2 small): blocks of the vocabulary go side by side
  // on the OpenMP threads (Eigen's own threading is off in this build). With rows of W_U contiguous (every
  // model here), several rows (the logit lens: 13 for GPT-2 small) take the packed kernel block by block
  // (21 → 6 ms); one or two rows a row-major view that vectorises (Eigen's general strided view does not:
  // 130 ms for one GPT-2-small row against a few ms).
  using RowMajorView =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;
  const bool packed = colStride == 1 && x.rows() >= kPackedMinRows;
  const Eigen::Index block = packed ? kPackedBlock : 4096;
  const auto blocks = static_cast<int>((vocab + block - 1) / block);
#pragma omp parallel
  {
    std::vector<float> panels;
#pragma omp for schedule(static)
    for (int b = 0; b < blocks; ++b) {
      const Eigen::Index v0 = b * block, len = std::min(block, vocab - v0);
      if (packed) {
        packedBlock(data, rowStride, normed, v0, len, panels, out);
      } else if (colStride == 1) {
        const RowMajorView w(data, vocab, d, Eigen::OuterStride<>(rowStride));
        out.middleCols(v0, len).noalias() = normed * w.middleRows(v0, len).transpose();
      } else {
        out.middleCols(v0, len).noalias() = normed * weights().middleRows(v0, len).transpose();
      }
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
