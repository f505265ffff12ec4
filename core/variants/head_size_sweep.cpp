#include "core/variants/head_size_sweep.h"

#include <cmath>

#include "core/base/rng.h"
#include "core/model/blocks.h"
#include "core/spectra/spectrum.h"

namespace attnlab {
namespace {

MatD gaussianMatrix(int rows, int cols, Rng& rng) {
  MatD m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = rng.normal();
  return m;
}

void addPoint(HeadSizeCurve& curve, const MatD& attention) {
  const VecD sv = singularValues(attention);
  curve.rank.push_back(numericalRank(sv, attention.rows(), attention.cols()));
  curve.effectiveRank.push_back(effectiveRank(sv));
  curve.entropy.push_back(meanRowEntropy(attention));
}

}  // namespace

std::vector<int> headSizeKeySizes(int maxKeySize) {
  std::vector<int> sizes;
  for (int d = 1; d <= maxKeySize; d *= 2) sizes.push_back(d);
  if (sizes.empty() || sizes.back() != maxKeySize) sizes.push_back(maxKeySize);
  return sizes;
}

HeadSizeSweep runHeadSizeSweep(const HeadSizeSettings& s, const RunControl& control) {
  SpectraSettings all;
  all.headSize = s;
  validate(all);
  HeadSizeSweep sweep;
  sweep.n = s.n;
  sweep.keySizes = headSizeKeySizes(s.maxKeySize);
  sweep.curves.push_back({"softmax", {}, {}, {}});
  for (FeatureMap f : featureMaps()) sweep.curves.push_back({featureMapName(f), {}, {}, {}});
  control.checkpoint(0.0);
  for (std::size_t p = 0; p < sweep.keySizes.size(); ++p) {
    const int d = sweep.keySizes[p];
    // Each key size has its own stream: adding a size never changes the others' Q, K.
    Rng rng(mixSeed(s.seed, static_cast<uint64_t>(d)));
    const MatD q = gaussianMatrix(s.n, d, rng), k = gaussianMatrix(s.n, d, rng);
    MatD softmax = (q * k.transpose()) / std::sqrt(static_cast<double>(d));  // [n, n]
    softmaxRowsInPlace(softmax);
    addPoint(sweep.curves[0], softmax);
    const MatD omega = performerOmega(d, 4 * d, mixSeed(s.seed, static_cast<uint64_t>(d), 1), true);
    std::size_t c = 1;
    for (FeatureMap f : featureMaps()) {
      const MatD pq = applyFeatureMap(f, q, &omega), pk = applyFeatureMap(f, k, &omega);
      addPoint(sweep.curves[c++], linearAttention(pq, pk, false));
    }
    control.checkpoint(static_cast<double>(p + 1) / sweep.keySizes.size());
  }
  return sweep;
}

}  // namespace attnlab
