#include "core/atlas/corpus_dla.h"

#include <limits>

namespace attnlab {

DlaAccumulator::DlaAccumulator(const Unembedding& unembedding, const std::vector<Mat>& weights, int layers, int heads)
    : u_(unembedding), weights_(weights), layers_(layers), heads_(heads), sums_(MatD::Zero(layers, heads)) {}

void DlaAccumulator::addWindow(const Trace& trace, const ScanWindow& window) {
  // Positions 0 … m−1 predict tokens 1 … m, the last of them the window's last text token.
  const int m = trace.tokenCount() - window.suffix - 1;
  if (m <= 0 || window.text.ids.empty()) return;
  const Mat& x = trace.layers.back().residualOut;  // [n, d], before the final norm
  const Vec sigma = u_.scales(x.topRows(m));
  const auto w = u_.weights();  // [vocab, d]
  Mat g(u_.d, m);               // w̃_i as columns
  for (int i = 0; i < m; ++i) {
    g.col(i) = w.row(window.text.ids[static_cast<std::size_t>(i + 1)]).transpose();
    if (u_.norm == Unembedding::Norm::None) continue;
    g.col(i) = g.col(i).cwiseProduct(u_.gamma) / sigma(i);
    if (u_.norm == Unembedding::Norm::Layer) g.col(i).array() -= g.col(i).mean();
  }
  for (int l = 0; l < layers_; ++l) {
    const Mat b = weights_[static_cast<std::size_t>(l)] * g;                      // [H·d_head, m]
    const Mat p = trace.layers[l].concat.topRows(m).cwiseProduct(b.transpose());  // [m, H·d_head]
    const Eigen::Index dh = p.cols() / heads_;
    for (int h = 0; h < heads_; ++h)
      sums_(l, h) += p.middleCols(h * dh, dh).rowwise().sum().cast<double>().cwiseAbs().sum();
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
