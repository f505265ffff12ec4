#pragma once
// How alike the heads' attention patterns are (issue 17, "similar heads"): for every pair of heads the
// Jensen–Shannon divergence of their attention rows, JSD(P, Q) = H(M) − (H(P) + H(Q))/2 with M = (P + Q)/2 (nats,
// 0·ln 0 = 0), averaged over sampled query rows; similarity = 1 − mean JSD / ln 2 ∈ [0, 1]. Then an average-linkage
// clustering of the distance 1 − similarity (leaves in dendrogram order) and a classical-MDS map of it.
// Heads are layer-major: index = layer · heads + head.
#include <array>
#include <vector>

#include "core/base/run_control.h"
#include "core/model/trace.h"

namespace attnlab {

using SimilarityMatrix = std::vector<std::vector<double>>;

class SimilarityAccumulator {
 public:
  /// Compares every pair of heads on at most `maxRows` query rows of `trace`, evenly spread over rows [1, rows)
  /// (rows < 0: all; row 0 is skipped, a causal head can only look at itself there). The first trace fixes the
  /// head count (a later mismatch throws InputError). Cancelled through `control` between heads.
  void add(const Trace& trace, int rows = -1, int maxRows = 64, const RunControl& control = {});
  /// Query rows compared so far.
  long long rowsCompared() const { return rows_; }
  /// [L·H][L·H], 1 on the diagonal; empty before any row.
  SimilarityMatrix similarity() const;

 private:
  int heads_ = 0;           ///< L·H
  long long rows_ = 0;      ///< rows compared
  Eigen::MatrixXd jsdSum_;  ///< Σ over rows of JSD, upper triangle  [L·H, L·H]
};

/// The similarity of every pair of heads over the query rows of one trace (SimilarityAccumulator on it alone).
SimilarityMatrix headSimilarity(const Trace& trace, int maxRows = 64, const RunControl& control = {});

/// Average-linkage (UPGMA) agglomerative clustering on 1 − similarity; the leaves in dendrogram order (each
/// merge puts the cluster holding the lower head index first). O(N³) for N heads: 25 ms at N = 540.
std::vector<int> clusterOrder(const SimilarityMatrix& similarity);

/// Classical MDS of the distances 1 − similarity: B = −½·J·D²·J, coordinates = the top two eigenvectors ·
/// √eigenvalue (0 where an eigenvalue is not positive); each axis's sign makes its largest coordinate positive.
std::vector<std::array<double, 2>> map2d(const SimilarityMatrix& similarity);

}  // namespace attnlab
