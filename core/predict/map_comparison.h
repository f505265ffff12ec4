#pragma once
// One head's attention in two runs compared position by position (issue 31, the side-by-side view): two texts, or
// one text with and without heads switched off. The maps are aligned on token positions — query i and key j of one
// run against query i and key j of the other — so their difference exists only where both runs have the position:
// the top-left common × common block, common = min(n_a, n_b).
#include <string>
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

struct MapDifference {
  int common = 0;      ///< positions both maps have: min(n_a, n_b)
  int sameTokens = 0;  ///< leading positions whose tokens are the same in both runs
  Mat difference;      ///< [common, common]: b − a, cell by cell
};

/// b − a on the positions both have; `tokensA` / `tokensB` (one per row of a / b) count the shared leading tokens.
MapDifference compareMaps(const Mat& a, const Mat& b, const std::vector<std::string>& tokensA,
                          const std::vector<std::string>& tokensB);

}  // namespace attnlab
