#pragma once
// GPT-2 with a key/value cache (core/model/decode_session.h): per layer the K and V rows [n, d] of every
// position so far; a new token's row runs LN₁ → c_attn → attention over the cache → c_proj → MLP, as
// Gpt2Model::runLayer does for a whole sentence, then ln_f and the unembedding give its logits.
#include <vector>

#include "core/checkpoint/gpt2_model.h"
#include "core/checkpoint/hf_decode_session.h"
#include "core/model/decode_session.h"

namespace attnlab {

class Gpt2DecodeSession : public HfDecodeSession {
 public:
  /// `model` must outlive the session. Reads `promptIds` (checked like append's ids) in one pass.
  Gpt2DecodeSession(const Gpt2Model& model, const std::vector<int>& promptIds, const RunControl& control);

 private:
  Mat run(const std::vector<int>& ids, const RunControl& control) override;

  const Gpt2Model& model_;
};

}  // namespace attnlab
