#include "core/predict/map_comparison.h"

#include <algorithm>

namespace attnlab {

MapDifference compareMaps(const Mat& a, const Mat& b, const std::vector<std::string>& tokensA,
                          const std::vector<std::string>& tokensB) {
  MapDifference d;
  d.common = static_cast<int>(std::min({a.rows(), a.cols(), b.rows(), b.cols()}));
  d.difference = b.topLeftCorner(d.common, d.common) - a.topLeftCorner(d.common, d.common);
  const std::size_t n = std::min(tokensA.size(), tokensB.size());
  while (static_cast<std::size_t>(d.sameTokens) < n && tokensA[d.sameTokens] == tokensB[d.sameTokens]) ++d.sameTokens;
  return d;
}

}  // namespace attnlab
