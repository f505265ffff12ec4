#include "core/predict/run_comparison.h"

#include <cmath>
#include <string>

#include "core/base/errors.h"
#include "core/predict/prediction.h"

namespace attnlab {
namespace {

/// log Σ exp(z), shifted by the maximum.
double logSumExp(const VecD& z) { return z.maxCoeff() + std::log((z.array() - z.maxCoeff()).exp().sum()); }

}  // namespace

RunComparison compareRuns(const Unembedding& u, const Trace& plain, const Trace& changed, int position, int target,
                          double temperature) {
  return compareRuns(u, plain.layers.back().residualOut, changed.layers.back().residualOut, position, target,
                     temperature);
}

RunComparison compareRuns(const Unembedding& u, const Mat& plainFinal, const Mat& changedFinal, int position,
                          int target, double temperature) {
  RunComparison c;
  const Vec plainLogits = rowLogits(u, plainFinal.row(position).transpose());
  c.changedLogits = rowLogits(u, changedFinal.row(position).transpose());
  const VecD p = softmaxAt(plainLogits, temperature), q = softmaxAt(c.changedLogits, temperature);
  Eigen::Index best = 0;
  p.maxCoeff(&best);
  c.target = target >= 0 ? target : static_cast<int>(best);
  if (c.target >= p.size()) throw InputError("token id " + std::to_string(c.target) + " is outside the vocabulary");
  c.plainProb = p(c.target);
  c.changedProb = q(c.target);
  const VecD zp = plainLogits.cast<double>() / temperature, zq = c.changedLogits.cast<double>() / temperature;
  c.kl = (p.array() * ((zp.array() - logSumExp(zp)) - (zq.array() - logSumExp(zq)))).sum();
  return c;
}

}  // namespace attnlab
