#pragma once
// Many patched or ablated runs of one text at the cost of what they change (issue 16's activation patching,
// issue 17's ablation effect). A run patched or ablated from layer L (a head's output or a residual row copied from
// another run, heads zeroed or set to their mean: intervention.h) equals the plain traced run `base` before L; in a
// causal model a patched run also equals it on every row before the first row the patch changes (r₀: later rows
// cannot reach back; an ablation changes every row, r₀ = 0). So each run starts at layer L from base's stream on
// rows [r₀, n), takes base's attention in L itself (its heads' outputs, then the intervention), takes the keys and
// values of rows < r₀ from base's trace (a key/value cache, as decoding does), and in the last layer finishes only
// the rows asked for. Runs that start at the same layer are stacked, so every weight matrix streams once per layer
// for all of them:
//   rows per product  Σ_runs (n − r₀),   instead of n per run in a full forward pass.
// Nothing is traced: the result is the stream after the last layer at the rows asked for, equal to
// forward(text, {}, iv).layers.back().residualOut's rows up to float rounding.
#include <vector>

#include "core/model/attention_head.h"
#include "core/model/intervention.h"
#include "core/model/trace.h"

namespace attnlab {

/// A model's layer split at attention, for stacked rows of several runs.
class ResumableLayers {
 public:
  virtual ~ResumableLayers() = default;
  /// Q | K | V of stacked stream rows x [m, d] → [m, (H + 2·H_kv)·d_head] (K after any q/k norm, no RoPE).
  virtual Mat queryKeyValue(int layer, const Mat& x) const = 0;
  /// Position encoding inside attention applied to one run's rows at positions first … first + m − 1 of a
  /// text of `tokens` tokens (RoPE); q [m, H·d_head], k [m, H_kv·d_head]. Default: none (GPT-2).
  virtual void placeRows(int /*layer*/, int /*first*/, int /*tokens*/, Mat& /*q*/, Mat& /*k*/) const {}
  virtual HeadOptions headOptions(int layer) const = 0;
  /// x + attention output (from concat [m, H·d_head]) + MLP, for stacked rows x [m, d] → [m, d].
  virtual Mat finishLayer(int layer, const Mat& x, const Mat& concat) const = 0;
};

/// The stream after the last layer at rows `keep` (distinct, ascending) [keep.size(), d] for each run of the text
/// with `ivs[i]`; `base` is the traced plain run of the text.
std::vector<Mat> resumedRows(const ResumableLayers& model, const Trace& base, const std::vector<Intervention>& ivs,
                             const std::vector<int>& keep);
/// The same at the last position only [d].
std::vector<Vec> resumedLastRows(const ResumableLayers& model, const Trace& base, const std::vector<Intervention>& ivs);

/// The first layer `iv` changes (the layer count for a patch of the final stream only; −1 for none).
int firstTouchedLayer(const Intervention& iv, int layers);
/// The first row `iv` changes in a causal run of `base`: rows before it are base's in every layer (the
/// token count when nothing differs). 0 for a bidirectional model.
int firstChangedRow(const Intervention& iv, const Trace& base);

}  // namespace attnlab
