#include "core/atlas/corpus_dla.h"

#include <limits>

namespace attnlab {

namespace {

/// [W_O,0ᵀ | … | W_O,L−1ᵀ] packed for products from the left by [n, d]: output column l·W + r is row r of W_O,l.
PackedMatrix packedTransposes(const std::vector<Mat>& weights, Eigen::Index d) {
  std::vector<Mat> transposed;  // W_O,lᵀ [d, W]: its column r (contiguous) is row r of W_O,l
  std::vector<const void*> rows;
  transposed.reserve(weights.size());
  for (const Mat& w : weights) {
    transposed.push_back(w.transpose());
    for (Eigen::Index r = 0; r < w.rows(); ++r) rows.push_back(transposed.back().col(r).data());
  }
  return PackedMatrix::fromRows(rows, d, StoredFloat::F32);
}

}  // namespace

DlaAccumulator::DlaAccumulator(const Unembedding& unembedding, const std::vector<Mat>& weights, int layers, int heads)
    : u_(unembedding),
      layers_(layers),
      heads_(heads),
      width_(weights.empty() ? 0 : weights[0].rows()),
      projection_(packedTransposes(weights, unembedding.d)),
      sums_(MatD::Zero(layers, heads)) {}

void DlaAccumulator::addWindow(const Trace& trace, const ScanWindow& window) {
  // Positions 0 … m−1 predict tokens 1 … m, the last of them the window's last text token.
  const int m = trace.tokenCount() - window.suffix - 1;
  if (m <= 0 || window.text.ids.empty()) return;
  const Mat& x = trace.layers.back().residualOut;  // [n, d], before the final norm
  const Vec sigma = u_.scales(x.topRows(m));
  const auto w = u_.weights();  // [vocab, d]
  Mat g(u_.d, m);               // w̃_i as columns (contiguous to fill), transposed once for the product
  for (int i = 0; i < m; ++i) {
    g.col(i) = w.row(window.text.ids[static_cast<std::size_t>(i + 1)]).transpose();
    if (u_.norm == Unembedding::Norm::None) continue;
    g.col(i) = g.col(i).cwiseProduct(u_.gamma) / sigma(i);
    if (u_.norm == Unembedding::Norm::Layer) g.col(i).array() -= g.col(i).mean();
  }
  const Mat b = projection_.affine(g.transpose(), Vec());  // [m, L·H·d_head]: row i = W_O,l · w̃_i of every layer
  const Eigen::Index dh = width_ / heads_;
  for (int l = 0; l < layers_; ++l) {
    const auto o = trace.layers[l].concat.topRows(m);  // [m, H·d_head]
    for (int h = 0; h < heads_; ++h) {
      const auto share = o.middleCols(h * dh, dh).cwiseProduct(b.middleCols(l * width_ + h * dh, dh)).rowwise().sum();
      sums_(l, h) += share.cast<double>().cwiseAbs().sum();
    }
  }
  positions_ += m;
}

HeadGrid DlaAccumulator::mean() const {
  HeadGrid grid(static_cast<std::size_t>(layers_), std::vector<double>(static_cast<std::size_t>(heads_)));
  for (int l = 0; l < layers_; ++l)
    for (int h = 0; h < heads_; ++h)
      grid[l][h] =
          positions_ > 0 ? sums_(l, h) / static_cast<double>(positions_) : std::numeric_limits<double>::quiet_NaN();
  return grid;
}

}  // namespace attnlab
