#include "core/variants/complexity_sweep.h"

#include <chrono>

#include "core/base/eigen_threads.h"
#include "core/base/rng.h"

namespace attnlab {
namespace {

MatD randomMatrix(Eigen::Index rows, Eigen::Index cols, Rng& rng) {
  MatD m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = rng.normal();
  return m;
}

/// Best of up to 3 runs (1 when a run is slow): the minimum filters out a busy machine.
template <typename F>
double timeMs(F&& f) {
  double best = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ms);
    if (ms > 50) break;
  }
  return best;
}

}  // namespace

std::vector<int> sweepSizes(const SweepLimits& limits) {
  std::vector<int> sizes;
  const int top = std::max(limits.maxEfficientN, limits.maxExplicitN);
  for (int n = std::max(1, limits.minN); n <= top; n *= 2) sizes.push_back(n);
  return sizes;
}

ComplexitySweep measureComplexity(const VariantSettings& s, int dHead, const SweepLimits& limits,
                                  const RunControl& control) {
  const SingleThreadedEigen oneThread;  // one core: reproducible timings, a fair O(n) vs O(n²) picture
  validate(s);
  ComplexitySweep sweep;
  sweep.dHead = dHead;
  sweep.features = s.features;
  const std::vector<int> sizes = sweepSizes(limits);
  const int dv = limits.dValue > 0 ? limits.dValue : dHead;
  Rng rng(s.featureSeed);
  // Inputs of the largest size, scaled like unit-variance scores; each n uses their first n rows.
  const MatD q = randomMatrix(sizes.back(), dHead, rng), k = randomMatrix(sizes.back(), dHead, rng);
  const MatD v = randomMatrix(sizes.back(), dv, rng);
  const AttentionMask mask = maskOf(s, false);
  const std::size_t total = s.names.size() * 2;
  std::size_t done = 0;
  for (const std::string& name : s.names) {
    const VariantPtr variant = makeVariant(name, s);
    for (bool efficient : {false, true}) {
      TimingSeries series{name, efficient, {}, {}};
      const int cap = efficient ? limits.maxEfficientN : limits.maxExplicitN;
      for (int n : sizes) {
        if (n > cap) break;
        control.checkpoint((static_cast<double>(done) + static_cast<double>(n) / cap) / static_cast<double>(total));
        const MatD qn = q.topRows(n), kn = k.topRows(n), vn = v.topRows(n);
        const double ms = timeMs([&] {
          MatD out = efficient ? variant->output(qn, kn, vn, mask) : MatD(variant->attention(qn, kn, mask) * vn);
          (void)out;
        });
        series.n.push_back(n);
        series.ms.push_back(ms);
        if (ms > limits.budgetMs) break;
      }
      ++done;
      sweep.series.push_back(std::move(series));
    }
  }
  control.checkpoint(1.0);
  return sweep;
}

}  // namespace attnlab
