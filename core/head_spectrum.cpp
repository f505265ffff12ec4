#include "core/head_spectrum.h"

#include <algorithm>

#include "core/blocks.h"

namespace attnlab {

double scoreScale(const HeadTrace& h) {
  // c = ⟨S, P⟩ / ⟨P, P⟩ with P = Q·Kᵀ   (least squares over all n² entries)
  const MatD p = h.q.cast<double>() * h.k.cast<double>().transpose();
  const double pp = p.squaredNorm();
  if (!(pp > 0) || h.scores.rows() != p.rows() || h.scores.cols() != p.cols()) return 1.0;
  return (h.scores.cast<double>().array() * p.array()).sum() / pp;
}

HeadMatricesD headMatricesD(const HeadTrace& h, bool causal) {
  HeadMatricesD m;
  m.scale = scoreScale(h);
  m.scores.noalias() = h.q.cast<double>() * h.k.cast<double>().transpose();  // [n, n]
  m.scores *= m.scale;
  m.expScores = expShifted(m.scores);
  m.attention = m.scores;
  if (causal) applyCausalMask(m.attention);
  softmaxRowsInPlace(m.attention);
  return m;
}

HeadSpectrum headSpectrum(const HeadTrace& h, bool causal, const RunControl& control, bool withEigenvalues) {
  HeadSpectrum s;
  s.n = static_cast<int>(h.q.rows());
  s.dHead = static_cast<int>(h.q.cols());
  control.checkpoint(0.0);
  const HeadMatricesD m = headMatricesD(h, causal);
  // Rough cost shares for the progress bar: an SVD is ~1/10 of the eigenvalue iteration.
  const double svdShare = withEigenvalues ? 0.08 : 1.0 / 3.0;
  s.attention = computeSpectrum(m.attention, false);
  control.checkpoint(svdShare);
  s.scores = computeSpectrum(m.scores, false);
  control.checkpoint(2 * svdShare);
  s.expScores = computeSpectrum(m.expScores, false);
  control.checkpoint(3 * svdShare);
  if (withEigenvalues) {
    s.attention.eigenvalues = eigenvalues(m.attention);
    control.checkpoint(1.0);
  }
  return s;
}

HeadRankTable headRankTable(const Trace& t, const RunControl& control) {
  HeadRankTable table;
  table.n = t.tokenCount();
  const int total = t.layerCount() * t.headCount();
  int done = 0;
  control.checkpoint(0.0);
  for (const LayerTrace& layer : t.layers) {
    std::vector<HeadRankCell> row;
    for (const HeadTrace& h : layer.heads) {
      const HeadMatricesD m = headMatricesD(h, t.causal);
      const VecD sv = singularValues(m.attention);
      row.push_back(
          {numericalRank(sv, m.attention.rows(), m.attention.cols()), effectiveRank(sv), meanRowEntropy(m.attention)});
      control.checkpoint(static_cast<double>(++done) / std::max(1, total));
    }
    table.cells.push_back(std::move(row));
  }
  return table;
}

}  // namespace attnlab
