#pragma once
// Time of each variant's explicit (n×n) and efficient path vs sequence length n, on random inputs:
// the O(n²) vs O(n) cross-over, and Su's remark that with m = 4d linear attention is *slower* than
// softmax on short sequences. Long: run it on a worker (the GUI uses a BackgroundJob).
#include <string>
#include <vector>

#include "core/base/run_control.h"
#include "core/variants/variant_settings.h"

namespace attnlab {

struct SweepLimits {
  int minN = 16;
  int maxEfficientN = 16384;  ///< efficient paths (linear in n for the kernel kinds)
  int maxExplicitN = 4096;    ///< explicit paths: an n×n double matrix is 8·n² bytes (128 MiB at 4096)
  double budgetMs = 400;      ///< a path stops growing n once one run takes longer than this
  int dValue = 0;             ///< d_v; 0: the same as d_head
};

struct TimingSeries {
  std::string variant;
  bool efficient = false;
  std::vector<int> n;
  std::vector<double> ms;  ///< best of a few runs
};

struct ComplexitySweep {
  int dHead = 0;
  int features = 0;
  std::vector<TimingSeries> series;  ///< per variant: explicit, then efficient
};

/// The sizes tried: minN, 2·minN, … up to the larger maximum.
std::vector<int> sweepSizes(const SweepLimits& limits);

/// Measures every variant of `s.names` on random Q, K, V (seeded by s.featureSeed) of width dHead.
/// Throws Cancelled between measurements.
ComplexitySweep measureComplexity(const VariantSettings& s, int dHead, const SweepLimits& limits = {},
                                  const RunControl& control = {});

}  // namespace attnlab
