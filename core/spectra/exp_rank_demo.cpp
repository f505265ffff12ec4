#include "core/spectra/exp_rank_demo.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/base/rng.h"

namespace attnlab {

VecD rankDemoVector(int n, uint64_t seed) {
  Rng rng(seed);
  VecD x(n);
  for (int i = 0; i < n; ++i) x(i) = rng.normal();
  return x;
}

MatD expOuter(const VecD& x, double c) {
  MatD y = c * (x * x.transpose());  // c·x·xᵀ   [n, n]
  const double mx = y.size() ? y.maxCoeff() : 0.0;
  if (mx > 700) y.array() -= mx;  // exp(709) is the largest finite double
  return y.array().exp().matrix();
}

RankDemoResult runRankDemo(const RankDemoSettings& s) {
  SpectraSettings all;
  all.demo = s;
  validate(all);
  RankDemoResult r;
  r.n = s.n;
  r.scale = s.scale;
  r.seed = s.seed;
  r.x = rankDemoVector(s.n, s.seed);
  r.outer = computeSpectrum(r.x * r.x.transpose(), false);
  r.exp = computeSpectrum(expOuter(r.x, s.scale), false);
  return r;
}

std::vector<double> sweepScales(const RankDemoSettings& s) {
  std::vector<double> c(s.sweepPoints);
  const double lo = std::log(s.sweepMin), hi = std::log(s.sweepMax);
  for (int i = 0; i < s.sweepPoints; ++i) c[i] = std::exp(lo + (hi - lo) * i / (s.sweepPoints - 1));
  c.front() = s.sweepMin;  // the ends exactly as given, not exp(log(·)) of them
  c.back() = s.sweepMax;
  return c;
}

std::vector<RankSweepPoint> rankSweep(const RankDemoSettings& s, const RunControl& control) {
  SpectraSettings all;
  all.demo = s;
  validate(all);
  const VecD x = rankDemoVector(s.n, s.seed);
  const std::vector<double> scales = sweepScales(s);
  std::vector<RankSweepPoint> out;
  control.checkpoint(0.0);
  for (std::size_t i = 0; i < scales.size(); ++i) {
    const MatD e = expOuter(x, scales[i]);
    const VecD sv = singularValues(e);
    out.push_back({scales[i], numericalRank(sv, e.rows(), e.cols()), effectiveRank(sv)});
    control.checkpoint(static_cast<double>(i + 1) / scales.size());
  }
  return out;
}

}  // namespace attnlab
