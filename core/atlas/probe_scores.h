#pragma once
// The attention-pattern scores of every head (issue 17; DESIGN.md "Round two", head scores), from a trace of the
// probe [BOS] r₁…r_T r₁…r_T (o = probe.offset, rows i < o + 2T; A = the head's attention, rows = queries):
//   previous_token  = mean over 1 ≤ i       of A[i, i−1]
//   induction       = mean over the second copy (o+T ≤ i < o+2T) of A[i, i−T+1]
//   duplicate_token = mean over the second copy                  of A[i, i−T]
//   bos             = mean over all rows       of A[i, 0]
//   entropy         = mean over all rows       of −Σ_j A_ij ln A_ij   (nats; 0·ln 0 = 0)
//   mean_distance   = mean over all rows       of Σ_j A_ij·|i−j|
// and the pattern scores (previous_token, bos, entropy, mean_distance) accumulated over windows of real text.
#include <map>
#include <string>

#include "core/atlas/head_atlas.h"
#include "core/model/trace.h"

namespace attnlab {

/// The six probe scores, one grid each, keyed by the names above. `trace` must be the model's forward pass of
/// `probe` (throws InputError when its length differs).
std::map<std::string, HeadGrid> probeScores(const Trace& trace, const AtlasProbe& probe);

/// Sums of the pattern scores over the rows of many traces (windows of a corpus), for averages over all rows seen.
/// Not thread-safe; merge() joins accumulators filled on different threads.
class PatternScoreAccumulator {
 public:
  /// Adds rows [0, rows) of every head of `trace` (rows < 0: all rows); row 0 has no previous token and counts for
  /// the others only. The first trace fixes the layer and head counts (a later mismatch throws InputError).
  void add(const Trace& trace, int rows = -1);
  void merge(const PatternScoreAccumulator& other);
  /// Rows added so far (per head).
  long long rows() const { return rows_; }
  /// "previous_token", "bos", "entropy", "mean_distance", each name prefixed by `prefix` (the corpus scan passes
  /// "corpus_"), averaged over every row added; empty grids before any trace, NaN after traces without rows.
  std::map<std::string, HeadGrid> grids(const std::string& prefix = "") const;

 private:
  void shape(int layers, int heads);
  int layers_ = 0, heads_ = 0;
  long long rows_ = 0, previousRows_ = 0;
  HeadGrid previous_, bos_, entropy_, distance_;  ///< sums
};

}  // namespace attnlab
