#pragma once
// What the views need of a head without its n × n map (issue 18): read off each row of attention weights as
// the forward pass makes it, so a long input keeps O(n) per head instead of O(n²).
//   entropy        mean over queries of −Σⱼ Aᵢⱼ ln Aᵢⱼ   (nats)
//   sinkShare      mean over queries of Aᵢ₀               (attention on the first token, the "sink")
//   previousToken  mean over queries i ≥ 1 of Aᵢ,ᵢ₋₁       (0 for one token)
//   meanDistance   mean over queries of Σⱼ Aᵢⱼ·|i − j|
//   maxWeight      the largest weight (the model view's shared colour scale)
//   thumbMean/Max  the map pooled into t × t cells, t = min(n, kThumbnailSize): cell (a, b) covers rows
//                  [⌈a·n/t⌉, ⌈(a+1)·n/t⌉) and the same columns; mean over all its cells (masked ones count as
//                  0), max over them. With n a multiple of t these are the pyramid's 2ᵏ-pooled levels.
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

inline constexpr int kThumbnailSize = 64;

struct HeadSummary {
  int tokens = 0;
  double entropy = 0, sinkShare = 0, previousToken = 0, meanDistance = 0;
  float maxWeight = 0;
  Mat thumbMean, thumbMax;  ///< [t, t]
  /// Per band of query rows (the thumbnail's t row bands): the sums over its rows of entropy, sink weight,
  /// previous-token weight and distance [t][4]. The totals above are made from these (and maxWeight from thumbMax), so
  /// an edit that leaves a text's first rows alone can take their bands from the last pass (HeadSummaryBuilder::resume)
  /// and still give the full pass's numbers bit for bit.
  std::vector<double> bandSums;

  bool empty() const { return tokens == 0; }
};

/// Accumulates a head's summary one query row at a time, rows in any order, each exactly once.
class HeadSummaryBuilder {
 public:
  explicit HeadSummaryBuilder(int tokens);
  /// Row `row`'s weights on keys [first, first + count) (the others are 0), contiguous; `entropy` its −Σ a ln a.
  void addRow(int row, const float* weights, int first, int count, double entropy);
  /// Takes from `known` — the summary of a pass over the same number of tokens whose rows before `firstChangedRow`
  /// were the same — every band of rows that ends before that row, and returns the first row still to add (the start
  /// of the first band not taken): add that row and every later one. Nothing is taken (returns 0) when `known` has
  /// another length or no bands.
  int resume(const HeadSummary& known, int firstChangedRow);
  HeadSummary finish();

 private:
  int n_, t_;
  int taken_ = 0;              ///< bands copied by resume: their thumbnail rows are final already
  std::vector<int> bin_;       ///< thumbnail cell of each token [n]
  std::vector<int> binStart_;  ///< first token of each cell [t + 1]
  HeadSummary s_;
};

/// The summary of a whole stored map [n, n] (rows = queries), entropy computed directly.
HeadSummary summarizeMap(const Mat& attention);

}  // namespace attnlab
