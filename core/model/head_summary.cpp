#include "core/model/head_summary.h"

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

int shiftFor(int tokens) {
  int k = 0;
  while (((static_cast<long long>(tokens) + (1LL << k) - 1) >> k) > kThumbnailSize) ++k;
  return k;
}

}  // namespace

int thumbnailCellTokens(int tokens) { return 1 << shiftFor(tokens); }

HeadSummaryBuilder::HeadSummaryBuilder(int tokens) : n_(std::max(0, tokens)), shift_(shiftFor(n_)) {
  t_ = (n_ + (1 << shift_) - 1) >> shift_;
  s_.tokens = n_;
  s_.cellTokens = 1 << shift_;
  s_.thumbSum = Mat::Zero(t_, t_);
  s_.thumbMax = Mat::Zero(t_, t_);
  s_.bandSums.assign(static_cast<std::size_t>(4 * t_), 0.0);
}

void HeadSummaryBuilder::addRow(int row, const float* weights, int first, int count, double entropy) {
  if (count <= 0) return;
  const Eigen::Map<const Eigen::ArrayXf> a(weights, count);
  const int cell = row >> shift_;
  double* sums = s_.bandSums.data() + 4 * cell;  // entropy, sink, previous token, distance of the row's band
  sums[0] += entropy;
  if (first == 0) sums[1] += a[0];
  const int prev = row - 1 - first;
  if (row >= 1 && prev >= 0 && prev < count) sums[2] += a[prev];
  // |row − j| for j = first … first + count − 1, as a lazy (vectorised) ramp
  const float d0 = static_cast<float>(first - row);
  sums[3] += (a * Eigen::ArrayXf::LinSpaced(count, d0, d0 + static_cast<float>(count - 1)).abs()).sum();
  const int end = first + count;
  for (int b = first >> shift_; b < t_ && (b << shift_) < end; ++b) {
    const int lo = std::max(first, b << shift_);
    const int hi = std::min(end, (b + 1) << shift_);
    const auto part = a.segment(lo - first, hi - lo);
    s_.thumbSum(cell, b) += part.sum();
    s_.thumbMax(cell, b) = std::max(s_.thumbMax(cell, b), part.maxCoeff());
  }
}

int HeadSummaryBuilder::resume(const HeadSummary& known, int firstChangedRow) {
  const int ks = known.cellTokens;
  if (firstChangedRow <= 0 || known.tokens <= 0 || ks <= 0 || (ks & (ks - 1)) != 0 || ks > s_.cellTokens) return 0;
  const int kt = (known.tokens + ks - 1) / ks;
  if (known.thumbSum.rows() != kt || known.thumbSum.cols() != kt || known.thumbMax.rows() != kt ||
      known.bandSums.size() != static_cast<std::size_t>(4 * kt))
    return 0;
  // The rows of `known` this pass shares: every one when none changed (a text grown at the end), else its bands
  // that end before the first changed row (a band's sums cannot be split).
  const int usable = std::min({firstChangedRow, known.tokens, n_});
  const int bands = usable == known.tokens ? kt : usable / ks;
  const int rows = std::min(usable, bands * ks);
  if (rows <= 0) return 0;
  // Known band a lies in this pass's band a·ks/s (the same band when the cells are as large). Columns past `rows`
  // are 0 in the rows taken (causal), so only the first cells of each band are read.
  const int k = shift_ - static_cast<int>(std::log2(ks) + 0.5);
  const int cols = (rows + ks - 1) / ks;
  for (int a = 0; a < bands; ++a) {
    const int to = a >> k;
    for (int i = 0; i < 4; ++i) s_.bandSums[4 * static_cast<std::size_t>(to) + i] += known.bandSums[4 * a + i];
    for (int b = 0; b < cols; ++b) {
      s_.thumbSum(to, b >> k) += known.thumbSum(a, b);
      s_.thumbMax(to, b >> k) = std::max(s_.thumbMax(to, b >> k), known.thumbMax(a, b));
    }
  }
  return rows;
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
  const auto extent = [this](int a) { return std::min(n_, (a + 1) << shift_) - (a << shift_); };
  s_.thumbMean.resize(t_, t_);
  for (int a = 0; a < t_; ++a)
    for (int b = 0; b < t_; ++b) {
      const double cells = static_cast<double>(extent(a)) * extent(b);
      s_.thumbMean(a, b) = static_cast<float>(s_.thumbSum(a, b) / cells);
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
