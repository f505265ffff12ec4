#pragma once
// "Elementwise exp can raise the rank", the example of seeds/000's comment thread:
//   x ~ N(0, 1)ⁿ,  y = x·xᵀ  (rank 1),  rank(exp(c·y)) ≈ 17–18 for n = 100, c = 1 (the comment's words; our
//   seeds 0–99 give 15–19, 17 for half of them: test_lesson_claims, lesson 8).
// x is drawn with our deterministic Rng, so a seed reproduces everywhere (numpy's draws differ).
#include <vector>

#include "core/base/run_control.h"
#include "core/spectra/spectra_settings.h"
#include "core/spectra/spectrum.h"

namespace attnlab {

struct RankDemoResult {
  int n = 0;
  double scale = 1;
  uint64_t seed = 0;
  VecD x;          ///< [n]
  Spectrum outer;  ///< of x·xᵀ
  Spectrum exp;    ///< of exp(c·x·xᵀ)
};

/// x of the demo for this seed: n standard normal draws.
VecD rankDemoVector(int n, uint64_t seed);

/// exp(c·x·xᵀ)   [n, n]. Shifted by its maximum only where exp would overflow (c·max x² > 700);
/// the shift is a positive factor, which changes neither rank nor effective rank.
MatD expOuter(const VecD& x, double c);

/// Both spectra for the settings' n, c and seed. Throws InputError for invalid settings.
RankDemoResult runRankDemo(const RankDemoSettings& s);

struct RankSweepPoint {
  double scale;
  int rank;
  double effectiveRank;
};

/// The sweep's c values: sweepPoints log-spaced from sweepMin to sweepMax.
std::vector<double> sweepScales(const RankDemoSettings& s);

/// rank(exp(c·x·xᵀ)) for every c of sweepScales, the same x (the settings' seed). Checks
/// `control` after each point.
std::vector<RankSweepPoint> rankSweep(const RankDemoSettings& s, const RunControl& control = {});

}  // namespace attnlab
