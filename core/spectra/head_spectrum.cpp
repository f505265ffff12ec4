#include "core/spectra/head_spectrum.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/parallel_jobs.h"
#include "core/model/blocks.h"

namespace attnlab {

double scoreScale(const HeadTrace& h) {
  // c = ⟨S, P⟩ / ⟨P, P⟩ with P = Q·Kᵀ   (least squares over all n² entries)
  // A long input keeps no scores (trace.h): the scale its pass used is in its options.
  if (h.scores.size() == 0 && h.q.rows() > 0) return h.options.scale;
  const MatD p = h.q.cast<double>() * h.k().cast<double>().transpose();
  const double pp = p.squaredNorm();
  if (!(pp > 0) || h.scores.rows() != p.rows() || h.scores.cols() != p.cols()) return 1.0;
  return (h.scores.cast<double>().array() * p.array()).sum() / pp;
}

HeadMatricesD headMatricesD(const HeadTrace& h, bool causal) {
  HeadMatricesD m;
  m.scale = scoreScale(h);
  m.scores.noalias() = h.q.cast<double>() * h.k().cast<double>().transpose();  // [n, n]
  m.scores *= m.scale;
  if (h.options.softcap > 0.0f) {  // Gemma 2, as the forward pass (explicitMaps) does
    const double c = h.options.softcap;
    m.scores = m.scores.unaryExpr([c](double s) { return std::tanh(s / c) * c; });
  }
  m.expScores = expShifted(m.scores);
  m.attention = m.scores;
  if (causal) applyCausalMask(m.attention);
  if (h.options.window > 0)  // sliding-window layers: keys j ≤ i − W are out
    for (Eigen::Index i = h.options.window; i < m.attention.rows(); ++i)
      m.attention.row(i).head(i - h.options.window + 1).setConstant(-std::numeric_limits<double>::infinity());
  softmaxRowsInPlace(m.attention);
  return m;
}

HeadSpectrum headSpectrum(const HeadTrace& h, bool causal, const RunControl& control, bool withEigenvalues) {
  HeadSpectrum s;
  s.n = static_cast<int>(h.q.rows());
  s.dHead = static_cast<int>(h.q.cols());
  control.checkpoint(0.0);
  const HeadMatricesD m = headMatricesD(h, causal);
  // Three SVDs and the eigenvalues, independent of each other: side by side on the OpenMP threads for
  // large heads (kParallelSpectrumSize). The eigenvalues go first (dynamic schedule): for a
  // bidirectional head they take the longest.
  std::vector<std::complex<double>> eig;
  const int first = withEigenvalues ? 0 : 1;
  maybeParallelJobs(s.n >= kParallelSpectrumSize, 4 - first, control, [&](int job) {
    switch (job + first) {
      case 0:
        eig = eigenvalues(m.attention);
        break;
      case 1:
        s.attention = computeSpectrum(m.attention, false);
        break;
      case 2:
        s.scores = computeSpectrum(m.scores, false);
        break;
      default:
        s.expScores = computeSpectrum(m.expScores, false);
        break;
    }
  });
  s.attention.eigenvalues = std::move(eig);
  return s;
}

HeadRankTable headRankTable(const Trace& t, const RunControl& control) {
  HeadRankTable table;
  table.n = t.tokenCount();
  const int layers = t.layerCount(), heads = t.headCount();
  table.cells.assign(static_cast<std::size_t>(layers), std::vector<HeadRankCell>(static_cast<std::size_t>(heads)));
  // One job per head, side by side on the OpenMP threads (GPT-2 small has 144).
  parallelJobs(layers * heads, control, [&](int job) {
    const int l = job / heads, hd = job % heads;
    const HeadMatricesD m = headMatricesD(t.layers[l].heads[hd], t.causal);
    const VecD sv = singularValues(m.attention);
    table.cells[l][hd] = {numericalRank(sv, m.attention.rows(), m.attention.cols()), effectiveRank(sv),
                          meanRowEntropy(m.attention)};
  });
  return table;
}

}  // namespace attnlab
