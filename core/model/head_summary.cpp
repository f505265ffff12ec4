#include "core/model/head_summary.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

HeadSummaryBuilder::HeadSummaryBuilder(int tokens) : n_(tokens), t_(std::min(tokens, kThumbnailSize)) {
  s_.tokens = tokens;
  s_.thumbMean = Mat::Zero(t_, t_);
  s_.thumbMax = Mat::Zero(t_, t_);
  binStart_.resize(static_cast<std::size_t>(t_) + 1);
  for (int a = 0; a <= t_; ++a)  // ⌈a·n/t⌉
    binStart_[static_cast<std::size_t>(a)] = static_cast<int>((static_cast<long long>(a) * n_ + t_ - 1) / t_);
  bin_.resize(static_cast<std::size_t>(n_));
  for (int a = 0; a < t_; ++a)
    std::fill(bin_.begin() + binStart_[static_cast<std::size_t>(a)], bin_.begin() + binStart_[a + 1UL], a);
}

void HeadSummaryBuilder::addRow(int row, const float* weights, int first, int count, double entropy) {
  if (count <= 0) return;
  const Eigen::Map<const Eigen::ArrayXf> a(weights, count);
  s_.entropy += entropy;
  if (first == 0) s_.sinkShare += a[0];
  const int prev = row - 1 - first;
  if (row >= 1 && prev >= 0 && prev < count) s_.previousToken += a[prev];
  // |row − j| for j = first … first + count − 1, as a lazy (vectorised) ramp
  const float d0 = static_cast<float>(first - row);
  s_.meanDistance += (a * Eigen::ArrayXf::LinSpaced(count, d0, d0 + static_cast<float>(count - 1)).abs()).sum();
  s_.maxWeight = std::max(s_.maxWeight, a.maxCoeff());
  const int cell = bin_[static_cast<std::size_t>(row)];
  const int end = first + count;
  for (int b = bin_[static_cast<std::size_t>(first)]; b < t_ && binStart_[static_cast<std::size_t>(b)] < end; ++b) {
    const int lo = std::max(first, binStart_[static_cast<std::size_t>(b)]);
    const int hi = std::min(end, binStart_[b + 1UL]);
    const auto part = a.segment(lo - first, hi - lo);
    s_.thumbMean(cell, b) += part.sum();
    s_.thumbMax(cell, b) = std::max(s_.thumbMax(cell, b), part.maxCoeff());
  }
}

HeadSummary HeadSummaryBuilder::finish() {
  if (n_ == 0) return s_;
  s_.entropy /= n_;
  s_.sinkShare /= n_;
  s_.meanDistance /= n_;
  s_.previousToken = n_ > 1 ? s_.previousToken / (n_ - 1) : 0.0;
  for (int a = 0; a < t_; ++a)
    for (int b = 0; b < t_; ++b) {
      const double cells = static_cast<double>(binStart_[a + 1UL] - binStart_[static_cast<std::size_t>(a)]) *
                           (binStart_[b + 1UL] - binStart_[static_cast<std::size_t>(b)]);
      s_.thumbMean(a, b) = static_cast<float>(s_.thumbMean(a, b) / cells);
    }
  return std::move(s_);
}

HeadSummary summarizeMap(const Mat& attention) {
  const int n = static_cast<int>(attention.rows());
  HeadSummaryBuilder b(n);
  Eigen::VectorXf row(n);
  for (int i = 0; i < n; ++i) {
    row = attention.row(i).transpose();
    double entropy = 0;
    for (int j = 0; j < n; ++j)
      if (row[j] > 0) entropy -= static_cast<double>(row[j]) * std::log(static_cast<double>(row[j]));
    b.addRow(i, row.data(), 0, n, entropy);
  }
  return b.finish();
}

}  // namespace attnlab
