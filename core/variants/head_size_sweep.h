#pragma once
// "Linear attention needs a larger key size to keep its rank" (seeds/000): rank and entropy of
// softmax attention and of linear attention (each feature map of feature_maps.h) as the key size d
// grows, on random Q, K with N(0, 1) entries for n tokens. Linear attention's rank is at most its
// feature count (d, or m = 4d for Performer); softmax's is not bounded by d.
#include <vector>

#include "core/base/run_control.h"
#include "core/spectra/spectra_settings.h"
#include "core/variants/feature_maps.h"

namespace attnlab {

struct HeadSizeCurve {
  std::string name;  ///< "softmax", or a featureMapName
  std::vector<int> rank;
  std::vector<double> effectiveRank;
  std::vector<double> entropy;  ///< mean row entropy, nats
};

struct HeadSizeSweep {
  int n = 0;
  std::vector<int> keySizes;          ///< 1, 2, 4, … ≤ maxKeySize
  std::vector<HeadSizeCurve> curves;  ///< softmax first, then featureMaps() order
};

/// Key sizes of the sweep: powers of two up to maxKeySize (and maxKeySize itself).
std::vector<int> headSizeKeySizes(int maxKeySize);

/// Runs the sweep (Performer with m = 4d, orthogonal features). Checks `control` after every key size.
HeadSizeSweep runHeadSizeSweep(const HeadSizeSettings& s, const RunControl& control = {});

}  // namespace attnlab
