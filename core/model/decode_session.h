#pragma once
// Incremental next-token decoding with a key/value cache (issue 16, "Generate"). A session holds, per
// layer, the K and V rows of every position seen so far (per kv head, RoPE already applied at the token's
// position); appending a token runs its one row through every layer, attending over the cache:
//   per layer  O(n·d) attention + O(d²) products,   then the final norm and the unembedding [vocab, d]
// instead of the O(n·d² + n²·d) of a full forward pass. The logits equal those of forward() +
// unembedding()->logits() on the whole sequence's last row (to float rounding).
#include <vector>

#include "core/base/run_control.h"
#include "core/base/tensor.h"
#include "core/model/attention_head.h"
#include "core/model/unembedding.h"

namespace attnlab {

class DecodeSession {
 public:
  virtual ~DecodeSession() = default;
  /// Appends token `id` at position tokenCount() and returns the next-token logits [vocab] after it
  /// (soft-capped when the model does). Throws InputError for an id outside the vocabulary or past
  /// maxTokens(); the session is unchanged then.
  virtual Vec append(int id) = 0;
  /// Tokens in the cache (prompt and appended).
  virtual int tokenCount() const = 0;
  /// The longest sequence the cache may hold.
  virtual int maxTokens() const = 0;
  /// Throws InputError, saying why, when `more` tokens would not fit after tokenCount().
  virtual void checkRoom(int more) const = 0;
  /// The logits after the newest token [vocab] (those of the prompt's last token right after the start).
  const Vec& logits() const { return logits_; }

 protected:
  Vec logits_;
};

/// One layer's keys and values, rows = positions [capacity, kvHeads·d_head]; `rows` of them are filled.
/// Capacity doubles as tokens arrive (amortised O(1) per row).
struct KvCache {
  Mat k, v;
  Eigen::Index rows = 0;
  /// Appends m rows of keys and values [m, kvHeads·d_head].
  void append(const Eigen::Ref<const Mat>& newK, const Eigen::Ref<const Mat>& newV);
};

/// Attention of the m newest positions: q [m, heads·d_head] holds the queries of positions
/// p₀ … p₀ + m − 1 with p₀ = cache.rows − m (their keys and values already appended). Query head h reads kv
/// head ⌊h / (heads / kvHeads)⌋; scores = q·kᵀ·scale, soft-capped, masked causal ∩ window, softmax, ·V. Only
/// keys inside the window are read. Returns the heads' outputs side by side [m, heads·d_head].
Mat attendCached(const Mat& q, const KvCache& cache, int heads, int kvHeads, int dHead, const HeadOptions& o);

/// Throws InputError naming the first id outside [0, vocabSize).
void checkTokenIds(const std::vector<int>& ids, int vocabSize);

/// The logits [vocab] of one residual row x [1, d]: Unembedding::logits of that row.
Vec nextTokenLogits(const Unembedding& u, const Mat& x);

}  // namespace attnlab
