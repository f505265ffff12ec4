#include "core/atlas/probe_scores.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/errors.h"

namespace attnlab {

namespace {

/// Sums over rows [0, rows) of one head's attention A [n, n] (in double).
struct RowSums {
  double previous = 0, bos = 0, entropy = 0, distance = 0;
};

RowSums patternSums(const Mat& attention, int rows, bool causal) {
  // Column by column (contiguous in the column-major map), logarithms in float packets, each column's sum added in
  // double: a 20k-token corpus scan of GPT-2 small takes 360 M of them (4 s as doubles, the row walk strided). A
  // causal map's column j is 0 above row j (masked entries are exactly 0): only rows j … are read, the same sums.
  const auto a = attention.topRows(rows).array();  // [rows, n]
  RowSums s;
  for (int i = 1; i < rows; ++i) s.previous += a(i, i - 1);
  const Eigen::ArrayXf row = Eigen::ArrayXf::LinSpaced(rows, 0.0f, static_cast<float>(rows - 1));
  const Eigen::Index columns = causal ? std::min<Eigen::Index>(a.cols(), rows) : a.cols();
  for (Eigen::Index j = 0; j < columns; ++j) {
    const Eigen::Index top = causal ? j : 0;
    const auto c = a.col(j).segment(top, rows - top);
    const auto r = row.segment(top, rows - top);
    if (j == 0) s.bos = static_cast<double>(c.sum());
    // −Σ a ln a with 0·ln 0 = 0: the masked entries are exactly 0.
    s.entropy -= static_cast<double>((c > 0.0f).select(c * c.max(1e-30f).log(), 0.0f).sum());
    s.distance += static_cast<double>((c * (r - static_cast<float>(j)).abs()).sum());
  }
  return s;
}

HeadGrid grid(int layers, int heads, double value = 0.0) {
  return HeadGrid(static_cast<std::size_t>(layers), std::vector<double>(static_cast<std::size_t>(heads), value));
}

double& at(HeadGrid& g, int layer, int head) {
  return g[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head)];
}

/// Mean over the second copy of A[i, i − back].
double copyMean(const Mat& a, const AtlasProbe& probe, int back) {
  double sum = 0;
  const int first = probe.offset + probe.repeat;
  for (int i = first; i < first + probe.repeat; ++i) sum += a(i, i - back);
  return sum / probe.repeat;
}

}  // namespace

std::map<std::string, HeadGrid> probeScores(const Trace& trace, const AtlasProbe& probe) {
  const int rows = probe.scoredRows();
  if (trace.tokenCount() != rows + probe.suffix || probe.repeat < 2)
    throw InputError("the trace has " + std::to_string(trace.tokenCount()) + " tokens, the probe " +
                     std::to_string(rows + probe.suffix));
  const int layers = trace.layerCount(), heads = trace.headCount();
  std::map<std::string, HeadGrid> out;
  for (const char* name : {"previous_token", "induction", "duplicate_token", "bos", "entropy", "mean_distance"})
    out[name] = grid(layers, heads);
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const Mat& a = trace.layers[static_cast<std::size_t>(l)].heads[static_cast<std::size_t>(h)].attention;
      const RowSums s = patternSums(a, rows, trace.causal);
      at(out["previous_token"], l, h) = s.previous / (rows - 1);
      at(out["bos"], l, h) = s.bos / rows;
      at(out["entropy"], l, h) = s.entropy / rows;
      at(out["mean_distance"], l, h) = s.distance / rows;
      at(out["induction"], l, h) = copyMean(a, probe, probe.repeat - 1);
      at(out["duplicate_token"], l, h) = copyMean(a, probe, probe.repeat);
    }
  return out;
}

void PatternScoreAccumulator::shape(int layers, int heads) {
  if (layers_ == 0 && heads_ == 0) {
    layers_ = layers, heads_ = heads;
    previous_ = bos_ = entropy_ = distance_ = grid(layers, heads);
  } else if (layers != layers_ || heads != heads_) {
    throw InputError("pattern scores of " + std::to_string(layers) + " × " + std::to_string(heads) +
                     " heads cannot join those of " + std::to_string(layers_) + " × " + std::to_string(heads_));
  }
}

void PatternScoreAccumulator::add(const Trace& trace, int rows) {
  const int n = rows < 0 ? trace.tokenCount() : std::min(rows, trace.tokenCount());
  if (n == 0) return;
  shape(trace.layerCount(), trace.headCount());
  // The heads' sums on the OpenMP threads, added below in a fixed order (the same totals on any thread count).
  std::vector<RowSums> sums(static_cast<std::size_t>(layers_ * heads_));
#pragma omp parallel for schedule(dynamic)
  for (int idx = 0; idx < layers_ * heads_; ++idx)
    sums[static_cast<std::size_t>(idx)] = patternSums(
        trace.layers[static_cast<std::size_t>(idx / heads_)].heads[static_cast<std::size_t>(idx % heads_)].attention, n,
        trace.causal);
  for (int l = 0; l < layers_; ++l)
    for (int h = 0; h < heads_; ++h) {
      const RowSums& s = sums[static_cast<std::size_t>(l * heads_ + h)];
      at(previous_, l, h) += s.previous;
      at(bos_, l, h) += s.bos;
      at(entropy_, l, h) += s.entropy;
      at(distance_, l, h) += s.distance;
    }
  rows_ += n;
  previousRows_ += n - 1;
}

void PatternScoreAccumulator::merge(const PatternScoreAccumulator& other) {
  if (other.rows_ == 0 && other.layers_ == 0) return;
  shape(other.layers_, other.heads_);
  for (int l = 0; l < layers_; ++l)
    for (int h = 0; h < heads_; ++h) {
      at(previous_, l, h) += other.previous_[l][h];
      at(bos_, l, h) += other.bos_[l][h];
      at(entropy_, l, h) += other.entropy_[l][h];
      at(distance_, l, h) += other.distance_[l][h];
    }
  rows_ += other.rows_;
  previousRows_ += other.previousRows_;
}

std::map<std::string, HeadGrid> PatternScoreAccumulator::grids(const std::string& prefix) const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto mean = [&](const HeadGrid& sums, long long count) {
    HeadGrid g = grid(layers_, heads_, nan);
    for (int l = 0; l < layers_; ++l)
      for (int h = 0; h < heads_; ++h)
        if (count > 0) at(g, l, h) = sums[l][h] / static_cast<double>(count);
    return g;
  };
  return {{prefix + "previous_token", mean(previous_, previousRows_)},
          {prefix + "bos", mean(bos_, rows_)},
          {prefix + "entropy", mean(entropy_, rows_)},
          {prefix + "mean_distance", mean(distance_, rows_)}};
}

}  // namespace attnlab
