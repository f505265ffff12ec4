#include "core/base/gaussian_fill.h"

#include <array>
#include <cmath>

namespace attnlab {
namespace {

constexpr int kBlocks = 128;
constexpr double kTailStart = 3.442619855899;       // R: where the tail begins
constexpr double kBlockArea = 9.91256303526217e-3;  // V: area of each block

struct ZigguratTables {
  std::array<double, kBlocks + 1> x{};  ///< block edges, x[0] = V/f(R) (the base block), x[1] = R, x[128] = 0
  std::array<double, kBlocks> ratio{};  ///< x[i+1]/x[i]: inside this fraction a sample is accepted at once

  ZigguratTables() {
    double f = std::exp(-0.5 * kTailStart * kTailStart);
    x[0] = kBlockArea / f;
    x[1] = kTailStart;
    x[kBlocks] = 0;
    for (int i = 2; i < kBlocks; ++i) {
      x[i] = std::sqrt(-2.0 * std::log(kBlockArea / x[i - 1] + f));
      f = std::exp(-0.5 * x[i] * x[i]);
    }
    for (int i = 0; i < kBlocks; ++i) ratio[i] = x[i + 1] / x[i];
  }
};

const ZigguratTables& tables() {
  static const ZigguratTables t;
  return t;
}

/// Marsaglia's tail sampler beyond R.
double tail(Rng& rng, bool negative) {
  double x, y;
  do {
    x = std::log(rng.uniform()) / kTailStart;
    y = std::log(rng.uniform());
  } while (-2.0 * y < x * x);
  return negative ? x - kTailStart : kTailStart - x;
}

}  // namespace

double zigguratNormal(Rng& rng) {
  const ZigguratTables& t = tables();
  for (;;) {
    const uint64_t bits = rng.next();
    // The block index from the low 7 bits, u ∈ (−1, 1) from the top 53: disjoint bits, independent.
    const int i = static_cast<int>(bits & 0x7F);
    const double u = 2.0 * ((static_cast<double>(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0)) - 1.0;
    if (std::abs(u) < t.ratio[i]) return u * t.x[i];
    if (i == 0) return tail(rng, u < 0);
    const double x = u * t.x[i];
    const double f0 = std::exp(-0.5 * (t.x[i] * t.x[i] - x * x));
    const double f1 = std::exp(-0.5 * (t.x[i + 1] * t.x[i + 1] - x * x));
    if (f1 + rng.uniform() * (f0 - f1) < 1.0) return x;
  }
}

void fillGaussian(MatD& m, double std, Rng& rng) {
  double* out = m.data();
  for (Eigen::Index i = 0; i < m.size(); ++i) out[i] = std * zigguratNormal(rng);
}

}  // namespace attnlab
