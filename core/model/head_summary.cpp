#include "core/model/head_summary.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

HeadSummaryBuilder::HeadSummaryBuilder(int tokens) : n_(tokens), t_(std::min(tokens, kThumbnailSize)) {
  s_.tokens = tokens;
  s_.thumbMean = Mat::Zero(t_, t_);
  s_.thumbMax = Mat::Zero(t_, t_);
  s_.bandSums.assign(static_cast<std::size_t>(4 * t_), 0.0);
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
  const int cell = bin_[static_cast<std::size_t>(row)];
  double* sums = s_.bandSums.data() + 4 * cell;  // entropy, sink, previous token, distance of the row's band
  sums[0] += entropy;
  if (first == 0) sums[1] += a[0];
  const int prev = row - 1 - first;
  if (row >= 1 && prev >= 0 && prev < count) sums[2] += a[prev];
  // |row − j| for j = first … first + count − 1, as a lazy (vectorised) ramp
  const float d0 = static_cast<float>(first - row);
  sums[3] += (a * Eigen::ArrayXf::LinSpaced(count, d0, d0 + static_cast<float>(count - 1)).abs()).sum();
  const int end = first + count;
  for (int b = bin_[static_cast<std::size_t>(first)]; b < t_ && binStart_[static_cast<std::size_t>(b)] < end; ++b) {
    const int lo = std::max(first, binStart_[static_cast<std::size_t>(b)]);
    const int hi = std::min(end, binStart_[b + 1UL]);
    const auto part = a.segment(lo - first, hi - lo);
    s_.thumbMean(cell, b) += part.sum();
    s_.thumbMax(cell, b) = std::max(s_.thumbMax(cell, b), part.maxCoeff());
  }
}

int HeadSummaryBuilder::resume(const HeadSummary& known, int firstChangedRow) {
  if (known.tokens != n_ || known.bandSums.size() != s_.bandSums.size() || known.thumbMean.rows() != t_ ||
      firstChangedRow <= 0)
    return 0;
  taken_ = firstChangedRow >= n_ ? t_ : bin_[static_cast<std::size_t>(firstChangedRow)];
  std::copy_n(known.bandSums.begin(), 4 * taken_, s_.bandSums.begin());
  s_.thumbMean.topRows(taken_) = known.thumbMean.topRows(taken_);
  s_.thumbMax.topRows(taken_) = known.thumbMax.topRows(taken_);
  return binStart_[static_cast<std::size_t>(taken_)];
}

HeadSummary HeadSummaryBuilder::finish() {
  if (n_ == 0) return s_;
  // The totals from the bands in order, whichever pass made each band: an edit's summary equals the full pass's.
  for (int a = 0; a < t_; ++a) {
    const double* sums = s_.bandSums.data() + 4 * a;
    s_.entropy += sums[0];
    s_.sinkShare += sums[1];
    s_.previousToken += sums[2];
    s_.meanDistance += sums[3];
  }
  s_.maxWeight = s_.thumbMax.maxCoeff();  // each cell holds its weights' maximum; the masked ones count as 0
  s_.entropy /= n_;
  s_.sinkShare /= n_;
  s_.meanDistance /= n_;
  s_.previousToken = n_ > 1 ? s_.previousToken / (n_ - 1) : 0.0;
  for (int a = taken_; a < t_; ++a)  // the bands taken from a finished summary hold means already
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
