#pragma once
// What the views need of a head without its n × n map (issue 18): read off each row of attention weights as
// the forward pass makes it, so a long input keeps O(n) per head instead of O(n²).
//   entropy        mean over queries of −Σⱼ Aᵢⱼ ln Aᵢⱼ   (nats)
//   sinkShare      mean over queries of Aᵢ₀               (attention on the first token, the "sink")
//   previousToken  mean over queries i ≥ 1 of Aᵢ,ᵢ₋₁       (0 for one token)
//   meanDistance   mean over queries of Σⱼ Aᵢⱼ·|i − j|
//   maxWeight      the largest weight (the model view's shared colour scale)
//   thumbMean/Max  the map pooled into t × t cells of s × s tokens: s = the smallest power of two with
//                  t = ⌈n/s⌉ ≤ kThumbnailSize, so cell (a, b) covers rows [a·s, min((a+1)·s, n)) and the same
//                  columns; mean over all its cells (masked ones count as 0), max over them. These are the
//                  pyramid's level log₂ s (map_pyramid.h). The cells are fixed in rows, not in fractions of n
//                  (issue 31): a text grown at the end keeps every band of rows it had (HeadSummaryBuilder::resume).
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

inline constexpr int kThumbnailSize = 64;

/// s: tokens along a thumbnail cell's side for a map of n tokens (a power of two, 1 up to 64 tokens).
int thumbnailCellTokens(int tokens);

struct HeadSummary {
  int tokens = 0;
  int cellTokens = 0;  ///< s
  double entropy = 0, sinkShare = 0, previousToken = 0, meanDistance = 0;
  float maxWeight = 0;
  Mat thumbMean, thumbMax;  ///< [t, t]
  /// The raw sums of the weights in each cell [t, t] (thumbMean before dividing by the cells' areas), and per band
  /// of query rows (the thumbnail's t row bands) the sums over its rows of entropy, sink weight, previous-token weight
  /// and distance [t][4]. The totals above are made from these (and maxWeight from thumbMax), so an edit that leaves a
  /// text's first rows alone, or a text grown at the end, can take their bands from the last pass
  /// (HeadSummaryBuilder::resume) and go on adding rows to them.
  Mat thumbSum;
  std::vector<double> bandSums;

  bool empty() const { return tokens == 0; }
};

/// Accumulates a head's summary one query row at a time, rows in any order, each exactly once.
class HeadSummaryBuilder {
 public:
  explicit HeadSummaryBuilder(int tokens);
  /// Row `row`'s weights on keys [first, first + count) (the others are 0), contiguous; `entropy` its −Σ a ln a.
  void addRow(int row, const float* weights, int first, int count, double entropy);
  /// Takes from `known` — the summary of a causal pass whose rows before `firstChangedRow` were this pass's (same
  /// tokens, same keys before them) — the sums of rows it may, and returns the first row still to add: add that row
  /// and every later one. `known` may be shorter (a text grown at the end: all its rows are taken, also those of its
  /// last, partial band, which the new rows go on filling; its cells are pooled 2ᵏ × 2ᵏ into this pass's larger ones
  /// when the length crossed a power of two) or longer (a text cut at the end). Of a same-length pass, the bands that
  /// end before firstChangedRow are taken, bit for bit. Nothing is taken (returns 0) from a summary without sums or
  /// with larger cells than this pass's.
  int resume(const HeadSummary& known, int firstChangedRow);
  HeadSummary finish();

 private:
  int n_, t_, shift_;  ///< s = 2^shift_
  HeadSummary s_;
};

/// The summary of a whole stored map [n, n] (rows = queries), entropy computed directly.
HeadSummary summarizeMap(const Mat& attention);

}  // namespace attnlab
