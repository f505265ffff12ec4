#pragma once
// Direct-logit-attribution magnitude of every head over the corpus (issue 17; DESIGN.md "Round two"): the mean
// over positions i of |DLA of head h to the actual next token t_{i+1}|, the final norm's σ frozen per position:
//   w̃_i = γ ⊙ u_{t_{i+1}} / σ_i, centred for LayerNorm (centring moves from the stream onto w̃),
//   share_{i,h} = o_i^h · (W_O^h · w̃_i),
// batched as one product [w̃_i]ᵢ · [W_O,0ᵀ | … | W_O,L−1ᵀ] ([n, d]·[d, L·H·d_head]) per window through the packed
// kernel (W_Oᵀ of every layer packed once; Eigen's product, single-threaded here, took 3.8 of a 35 s scan of
// 20k tokens on GPT-2 small): d·L·H·d_head·n multiply-adds, the same shares attribution.h's
// directLogitAttribution gives one position at a time. A window's last position
// (no next token) is skipped, and so are those whose next token is a closing special token ([SEP]).
#include "core/atlas/corpus_reader.h"
#include "core/atlas/head_atlas.h"
#include "core/compute/packed_matrix.h"
#include "core/model/trace.h"
#include "core/model/unembedding.h"

namespace attnlab {

class DlaAccumulator {
 public:
  /// `weights`: W_O of every layer [H·d_head, d] (attribution.h's OutputProjections::weights).
  DlaAccumulator(const Unembedding& unembedding, const std::vector<Mat>& weights, int layers, int heads);
  void addWindow(const Trace& trace, const ScanWindow& window);
  /// Mean |share| per head; NaN before any position.
  HeadGrid mean() const;
  long long positions() const { return positions_; }

 private:
  const Unembedding& u_;
  int layers_, heads_;
  Eigen::Index width_;       ///< H·d_head
  PackedMatrix projection_;  ///< [W_O,0ᵀ | … | W_O,L−1ᵀ]  [d, L·H·d_head]
  MatD sums_;                ///< [layers, heads] Σ |share|
  long long positions_ = 0;
};

}  // namespace attnlab
