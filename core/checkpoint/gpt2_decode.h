#pragma once
// GPT-2 with a key/value cache (core/model/decode_session.h): per layer the K and V rows [n, d] of every
// position so far; a new token's row runs LN₁ → c_attn → attention over the cache → c_proj → MLP, as
// Gpt2Model::runLayer does for a whole sentence, then ln_f and the unembedding give its logits.
#include <vector>

#include "core/checkpoint/gpt2_model.h"
#include "core/model/decode_session.h"

namespace attnlab {

class Gpt2DecodeSession : public DecodeSession {
 public:
  /// `model` must outlive the session. Reads `promptIds` (checked like append's ids) in one pass.
  Gpt2DecodeSession(const Gpt2Model& model, const std::vector<int>& promptIds, const RunControl& control);

  Vec append(int id) override;
  int tokenCount() const override { return static_cast<int>(caches_.front().rows); }
  int maxTokens() const override { return model_.config_.maxPositions; }
  void checkRoom(int more) const override;

 private:
  /// Throws InputError unless every id is in the vocabulary and the cache has room for them all.
  void check(const std::vector<int>& ids) const;
  /// Runs the rows of `ids` at the next positions through every layer, filling the caches; returns the
  /// stream after the last layer [m, d].
  Mat run(const std::vector<int>& ids, const RunControl& control);

  const Gpt2Model& model_;
  std::vector<KvCache> caches_;  ///< one per layer, [n, d] keys and values (all heads side by side)
};

}  // namespace attnlab
