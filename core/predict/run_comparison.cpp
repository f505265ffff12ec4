#include "core/predict/run_comparison.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/errors.h"
#include "core/predict/prediction.h"

namespace attnlab {

RunComparison compareRuns(const Unembedding& u, const Trace& plain, const Trace& changed, int position, int target,
                          double temperature) {
  return compareRuns(u, plain.layers.back().residualOut, changed.layers.back().residualOut, position, target,
                     temperature);
}

RunComparison compareRuns(const Unembedding& u, const Mat& plainFinal, const Mat& changedFinal, int position,
                          int target, double temperature) {
  return compareRuns(rowLogits(u, plainFinal.row(position).transpose()),
                     rowLogits(u, changedFinal.row(position).transpose()), target, temperature);
}

namespace {

/// Σ_i f(i) over [0, n) in double, from float blocks of 4096.
template <typename F>
double blockSum(Eigen::Index n, F f) {
  double sum = 0.0;
  for (Eigen::Index b = 0; b < n; b += 4096) sum += f(b, std::min<Eigen::Index>(4096, n - b));
  return sum;
}

/// g(b) = e^(−b) − 1 + b ≥ 0 without cancellation: its series to b⁸ for |b| < 0.5 (truncation < 5e-8 relative),
/// else directly (≈ 1e-6 relative at |b| = 0.5).
Eigen::ArrayXf expRemainder(const Eigen::ArrayXf& b) {
  const Eigen::ArrayXf series =
      b.square() *
      (1.0f / 2 -
       b * (1.0f / 6 - b * (1.0f / 24 - b * (1.0f / 120 - b * (1.0f / 720 - b * (1.0f / 5040 - b * (1.0f / 40320)))))));
  return (b.abs() < 0.5f).select(series, (-b).exp() - 1.0f + b);
}

}  // namespace

RunComparison compareRuns(const Vec& plainLogits, const Vec& changedLogits, int target, double temperature) {
  if (plainLogits.size() != changedLogits.size() || plainLogits.size() == 0)
    throw InputError("the two runs' logits must cover the same vocabulary");
  RunComparison c;
  c.changedLogits = changedLogits;
  Eigen::Index best = 0;
  plainLogits.maxCoeff(&best);
  c.target = target >= 0 ? target : static_cast<int>(best);
  if (c.target >= plainLogits.size())
    throw InputError("token id " + std::to_string(c.target) + " is outside the vocabulary");
  // With p ∝ e^(z/T) (weights w = p / Σp) and a = (z − z')/T:  lse' − lse = log Σ w e^(−a), so for any shift s,
  // b = a − s:  KL = Σ w·a + lse' − lse = β + log(1 − β + G),  β = Σ w·b,  G = Σ w·g(b)  (g: expRemainder).
  // s = the mean of a makes β ≈ 0 and G ≈ KL, each term non-negative: no cancellation, so a tiny KL keeps its
  // digits; vocab float exps instead of the 4·vocab double ones of two softmaxes and two log-sum-exps.
  const double lseP = logSumExp(plainLogits, temperature);
  const float invT = static_cast<float>(1.0 / temperature);
  const Eigen::ArrayXf p = (plainLogits.array() * invT - static_cast<float>(lseP)).exp();
  const Eigen::ArrayXf a = (plainLogits.array() - changedLogits.array()) * invT;
  const Eigen::Index n = p.size();
  const double mass = blockSum(n, [&](Eigen::Index b, Eigen::Index m) { return p.segment(b, m).sum(); });
  const auto weighted = [&](const Eigen::ArrayXf& x) {
    return blockSum(n, [&](Eigen::Index b, Eigen::Index m) { return (p.segment(b, m) * x.segment(b, m)).sum(); }) /
           mass;
  };
  const double mean = weighted(a), lseQ = logSumExp(changedLogits, temperature);
  const Eigen::ArrayXf shifted = a - static_cast<float>(mean);
  if (-shifted.minCoeff() < 40.0f) {
    const double beta = weighted(shifted), g = weighted(expRemainder(shifted));
    c.kl = beta + std::log1p(g - beta);
  } else {  // a changed logit far above the plain one (e^(−b) would overflow a float): the direct form, ±1e-7
    c.kl = mean + lseQ - lseP;
  }
  c.plainProb = std::exp(plainLogits(c.target) / temperature - lseP);
  c.changedProb = std::exp(changedLogits(c.target) / temperature - lseQ);
  return c;
}

}  // namespace attnlab
