#pragma once
// A head's n × n maps when the views ask for them (issue 18): the stored ones of a short input, or recomputed
// from the head's Q and K by the rule that made them (HeadOptions) — the very code of the forward pass
// (explicitMaps), so a recomputed map equals the one a short input keeps. Long inputs keep no maps at all, so
// views and exports read them through here; HeadMapCache keeps the recent ones within a memory budget.
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>

#include "core/compute/packed_matrix.h"
#include "core/model/trace.h"

namespace attnlab {

/// The head's scores [n, n] (scaled, soft-capped, unmasked): a copy of the stored map or recomputed.
Mat headScores(const HeadTrace& h);
/// The head's attention weights [n, n] (masked entries exactly 0).
Mat headAttention(const HeadTrace& h);
/// Rows [first, first + count) of the head's attention weights → block [count, n]; O(count·n) memory, for pyramids
/// and summaries of maps too large to hold. `keysT` (optional, packedKeys) makes Q·Kᵀ through the packed product
/// kernel; the weights are the same to float rounding.
void headAttentionRows(const HeadTrace& h, Eigen::Index first, Eigen::Index count, Mat& block,
                       const PackedMatrix* keysT = nullptr);
/// The head's K packed as Kᵀ [d_head, n] for the product kernel (core/compute/packed_gemm.h), made once when a view
/// reads every row block of one head (the heatmap's pyramid): Eigen re-packed K [n, d_head] for each 64-row block
/// and ran at ~50 GFLOP/s with an inner dimension of 64 (two thirds of an 8,192-token head switch).
PackedMatrix packedKeys(const HeadTrace& h);
/// The keys queries first … first + count − 1 of an n-token input see between them: [begin, end) from the first
/// row's first visible key to the last row's end (HeadOptions::visibleKeys); outside it their rows are 0.
void visibleKeysOfRows(const HeadOptions& o, long first, long count, long n, long& begin, long& end);

/// Throws InputError naming the size when one n × n float map would exceed `budgetBytes`.
void checkMapFits(long long tokens, double budgetBytes);

/// Maps of one trace, computed on demand and kept while they fit the budget (least recently used out first).
/// Thread-safe: the GUI thread and a background analysis may ask at once; a map handed out stays valid while
/// its shared_ptr lives, even after it leaves the cache.
class HeadMapCache {
 public:
  static constexpr double kDefaultBudgetBytes = 1024.0 * 1024 * 1024;
  explicit HeadMapCache(double budgetBytes = kDefaultBudgetBytes) : budget_(budgetBytes) {}

  /// Head (layer, head) of `trace`: its stored map (no copy) or a recomputed one. Throws InputError (checkMapFits)
  /// for a map larger than the budget. Always ask with the same trace.
  std::shared_ptr<const Mat> attention(const Trace& trace, int layer, int head);
  std::shared_ptr<const Mat> scores(const Trace& trace, int layer, int head);
  /// Bytes of the recomputed maps held now.
  double bytes() const;
  double budget() const { return budget_; }

 private:
  struct Entry {
    int kind, layer, head;
    std::shared_ptr<const Mat> map;
  };
  std::shared_ptr<const Mat> get(const Trace& trace, int kind, int layer, int head);

  double budget_;
  double bytes_ = 0;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  ///< most recently used first
};

}  // namespace attnlab
