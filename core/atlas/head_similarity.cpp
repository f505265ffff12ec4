#include "core/atlas/head_similarity.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/errors.h"
#include "core/base/parallel_jobs.h"
#include "core/compute/eigen_decompositions.h"

namespace attnlab {

namespace {

/// Σ x ln x over an array with 0·ln 0 = 0 (ln of the clamped value is finite, times 0 is 0). In float: the
/// vectorised log is the whole cost (540 heads: 145,000 pairs × ~4,000 entries), and float's 1e-7 is far below
/// what a similarity shows.
template <typename A>
double sumXLogX(const A& x) {
  return static_cast<double>((x * x.max(1e-30f).log()).sum());
}

/// Query rows to compare: all of [1, rows) when they are at most `maxRows`, else `maxRows` evenly spread.
std::vector<int> sampleRows(int rows, int maxRows) {
  std::vector<int> out;
  const int available = rows - 1;
  if (available <= 0 || maxRows <= 0) return out;
  const int count = std::min(available, maxRows);
  for (int k = 0; k < count; ++k) out.push_back(1 + static_cast<int>(static_cast<long long>(k) * available / count));
  return out;
}

/// Every head's sampled rows packed into one column [S, L·H]: row i contributes its columns [0, i] when the trace
/// is causal (the rest are exactly 0 and add nothing to any entropy), else all n.
Eigen::ArrayXXf packRows(const Trace& trace, const std::vector<int>& rows) {
  const int n = trace.tokenCount(), heads = trace.headCount();
  Eigen::Index length = 0;
  for (int i : rows) length += trace.causal ? i + 1 : n;
  Eigen::ArrayXXf x(length, trace.layerCount() * heads);
  for (int l = 0; l < trace.layerCount(); ++l)
    for (int h = 0; h < heads; ++h) {
      const Mat& a = trace.layers[static_cast<std::size_t>(l)].heads[static_cast<std::size_t>(h)].attention;
      Eigen::Index at = 0;
      for (int i : rows) {
        const int len = trace.causal ? i + 1 : n;
        x.col(l * heads + h).segment(at, len) = a.row(i).head(len).transpose().array();
        at += len;
      }
    }
  return x;
}

}  // namespace

void SimilarityAccumulator::add(const Trace& trace, int rows, int maxRows, const RunControl& control) {
  const int n = rows < 0 ? trace.tokenCount() : std::min(rows, trace.tokenCount());
  const std::vector<int> sample = sampleRows(n, maxRows);
  const int heads = trace.layerCount() * trace.headCount();
  if (heads_ == 0) {
    heads_ = heads;
    jsdSum_ = Eigen::MatrixXd::Zero(heads, heads);
  } else if (heads != heads_) {
    throw InputError("the similarity of " + std::to_string(heads) + " heads cannot join that of " +
                     std::to_string(heads_));
  }
  if (sample.empty()) return;
  const Eigen::ArrayXXf x = packRows(trace, sample);
  Eigen::VectorXd selfEntropy(heads);  // −Σ p ln p of each head over the sampled rows
  for (int a = 0; a < heads; ++a) selfEntropy(a) = -sumXLogX(x.col(a));
  // Row a of the upper triangle per job; the pairs of a head with the ones after it are (N − a − 1) columns.
  maybeParallelJobs(static_cast<double>(heads) * heads * x.rows() > 2e6, heads, control, [&](int a) {
    for (int b = a + 1; b < heads; ++b) {
      const double mixed = -sumXLogX(0.5f * (x.col(a) + x.col(b)));
      jsdSum_(a, b) += std::max(0.0, mixed - 0.5 * (selfEntropy(a) + selfEntropy(b)));
    }
  });
  rows_ += static_cast<long long>(sample.size());
}

SimilarityMatrix SimilarityAccumulator::similarity() const {
  if (rows_ == 0) return {};
  SimilarityMatrix s(static_cast<std::size_t>(heads_), std::vector<double>(static_cast<std::size_t>(heads_), 1.0));
  for (int a = 0; a < heads_; ++a)
    for (int b = a + 1; b < heads_; ++b) {
      const double v = 1.0 - jsdSum_(a, b) / static_cast<double>(rows_) / std::log(2.0);
      s[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = v;
      s[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = v;
    }
  return s;
}

SimilarityMatrix headSimilarity(const Trace& trace, int maxRows, const RunControl& control) {
  SimilarityAccumulator acc;
  acc.add(trace, -1, maxRows, control);
  return acc.similarity();
}

std::vector<int> clusterOrder(const SimilarityMatrix& similarity) {
  const int n = static_cast<int>(similarity.size());
  // d(i, j) between the active clusters (average linkage: the mean distance between their members).
  Eigen::MatrixXd d(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      d(i, j) = std::max(0.0, 1.0 - similarity[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
  std::vector<std::vector<int>> members(static_cast<std::size_t>(n));
  std::vector<char> active(static_cast<std::size_t>(n), 1);
  for (int i = 0; i < n; ++i) members[static_cast<std::size_t>(i)] = {i};
  for (int merge = 1; merge < n; ++merge) {
    int bi = -1, bj = -1;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) {
      if (!active[static_cast<std::size_t>(i)]) continue;
      for (int j = i + 1; j < n; ++j)
        if (active[static_cast<std::size_t>(j)] && d(i, j) < best) best = d(i, j), bi = i, bj = j;
    }
    auto& into = members[static_cast<std::size_t>(bi)];
    auto& from = members[static_cast<std::size_t>(bj)];
    const double wi = static_cast<double>(into.size()), wj = static_cast<double>(from.size());
    for (int k = 0; k < n; ++k)
      if (active[static_cast<std::size_t>(k)] && k != bi && k != bj)
        d(bi, k) = d(k, bi) = (wi * d(bi, k) + wj * d(bj, k)) / (wi + wj);
    into.insert(into.end(), from.begin(), from.end());  // bi < bj: the lower head index stays first
    from.clear();
    active[static_cast<std::size_t>(bj)] = 0;
  }
  return n == 0 ? std::vector<int>{} : members[0];
}

std::vector<std::array<double, 2>> map2d(const SimilarityMatrix& similarity) {
  const int n = static_cast<int>(similarity.size());
  std::vector<std::array<double, 2>> out(static_cast<std::size_t>(n), {0.0, 0.0});
  if (n < 2) return out;
  Eigen::MatrixXd d2(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double d = std::max(0.0, 1.0 - similarity[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
      d2(i, j) = d * d;
    }
  // B = −½·J·D²·J with J = I − 11ᵀ/n: subtract row and column means, add back the grand mean.
  const Eigen::VectorXd rowMean = d2.rowwise().mean();
  const double grand = rowMean.mean();
  const Eigen::MatrixXd b = -0.5 * ((d2.colwise() - rowMean).rowwise() - rowMean.transpose()).array() - 0.5 * grand;
  VecD values;  // ascending
  MatD vectors;
  symmetricEigen(b, values, vectors);
  for (int axis = 0; axis < 2 && axis < n; ++axis) {
    const Eigen::Index k = n - 1 - axis;
    const double lambda = values(k);
    if (lambda <= 0) continue;
    Eigen::VectorXd v = vectors.col(k) * std::sqrt(lambda);
    Eigen::Index largest = 0;
    v.cwiseAbs().maxCoeff(&largest);
    if (v(largest) < 0) v = -v;
    for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)][static_cast<std::size_t>(axis)] = v(i);
  }
  return out;
}

}  // namespace attnlab
