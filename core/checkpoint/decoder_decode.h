#pragma once
// The decoder families (llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3) with a key/value cache
// (core/model/decode_session.h): per layer the K rows (q/k-normed, RoPE applied at each token's position
// with the layer's base) and V rows [n, H_kv·d_head]. A new token's row runs DecoderModel::runLayer's
// steps, attending over the cache inside the layer's sliding window with Gemma 2's soft-cap.
// Dynamic NTK RoPE rescales every position's angle once the sequence passes max_position_embeddings, so
// cached keys would go stale: the session stops there and says so.
#include <vector>

#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/hf_decode_session.h"
#include "core/model/decode_session.h"

namespace attnlab {

class DecoderDecodeSession : public HfDecodeSession {
 public:
  /// `model` must outlive the session. Reads `promptIds` (checked like append's ids) in one pass.
  DecoderDecodeSession(const DecoderModel& model, const std::vector<int>& promptIds, const RunControl& control);

 private:
  Mat run(const std::vector<int>& ids, const RunControl& control) override;
  std::string roomNote() const override;
  /// cos and sin at positions p₀ … p₀ + m − 1 [m, d_head/2], from inverse frequencies `inv`.
  RopeTables tables(const std::vector<double>& inv, int p0, int m) const;
  Mat layerStep(int layer, const Mat& x, const RopeTables& rope);

  const DecoderModel& model_;
  std::vector<double> globalInv_, localInv_;  ///< RoPE inverse frequencies [d_head/2] (position-independent)
};

}  // namespace attnlab
