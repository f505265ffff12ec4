#pragma once
// One decoder for today's open model families (llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3), its
// differences all read from config.json (decoder_config.h). Per layer, rows are tokens, n of them:
//   a   = norm_in(h)                                        RMSNorm, ·w or ·(1 + w)
//   qkv = a·[W_q | W_k | W_v] + b                            [n, (H + 2·H_kv)·d_head]
//   q, k ← norm per head (Qwen3, Gemma 3), then RoPE (the layer's base: Gemma 3's local layers differ)
//   head h: softmax(mask(softcap(q_h·k_gᵀ·scale)))·v_g, g = ⌊h / (H / H_kv)⌋, mask causal ∩ window
//   o   = concat·W_o + b_o;   h ← h + o                      (Gemma 2/3: h ← h + norm_post_attn(o))
//   m   = down(act(gate(x))·up(x)) of x = norm_ffn_in(h);  h ← h + m   (Gemma 2/3: + norm_post_ffn(m))
// Embeddings: embed[ids], × √d rounded to the weights' dtype for Gemma. Logits: final norm, then the
// unembedding (lm_head, or the embeddings when tied), then tanh soft-capping when the config asks.
// Products are packed at load (q|k|v and gate|up stacked into one product each).
#include <vector>

#include "core/checkpoint/hf_model.h"
#include "core/checkpoint/hf_weights.h"

namespace attnlab {

struct DecoderLayerWeights {
  WeightView inNorm, postAttnNorm, preFfnNorm, postFfnNorm;  ///< [d]; the last two only with sandwich norms
  WeightView qNorm, kNorm;                                   ///< [d_head], with q/k norms
  PackedMatrix qkvW;                                         ///< [d, (H + 2·H_kv)·d_head]
  Vec qkvB;                                                  ///< same width, or empty
  PackedMatrix oW;                                           ///< [H·d_head, d]
  Vec oB;
  PackedMatrix gateUpW;  ///< [d, 2·inner]: gate columns first, then up
  Vec gateUpB;
  PackedMatrix downW;  ///< [inner, d]
  Vec downB;
};

class DecoderModel : public HfModel {
 public:
  /// Maps and packs the weights (names under "model.", or "language_model.model." in Gemma 3's multimodal
  /// files), reporting progress and honouring cancel per layer; throws InputError naming missing tensors
  /// or shapes that contradict config.json.
  DecoderModel(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer, std::shared_ptr<SafetensorsSet> files,
               std::string name, const RunControl& control = {});

  ModelInfo info() const override;
  Trace forward(const TokenizedText& text, const RunControl& control = {}, const Intervention& iv = {}) const override;
  /// Patched runs resumed from `base` (core/model/resumed_runs.h); with ablations, full forward passes.
  std::vector<Vec> lastRowsWith(const TokenizedText& text, const Trace& base,
                                const std::vector<Intervention>& ivs) const override;
  std::vector<Mat> rowsWith(const TokenizedText& text, const Trace& base, const std::vector<Intervention>& ivs,
                            const std::vector<int>& rows) const override;
  /// Defined in decoder_decode.cpp.
  std::unique_ptr<DecodeSession> startDecoding(const std::vector<int>& promptIds,
                                               const RunControl& control = {}) const override;

  /// The final norm of residual rows [n, d] → [n, d].
  Mat finalNorm(const Mat& residual) const;
  /// Next-token logits of residual rows [n, d] → [n, vocab]: final norm, unembedding, soft-cap.
  Mat logits(const Mat& residual) const;
  /// The multiplier applied to embedding rows (1 unless Gemma's √d).
  float embeddingScale() const { return embedScale_; }
  /// embed_tokens [vocab, d] (without Gemma's √d: a scale does not change the copying score).
  UnembeddingView tokenEmbeddings() const override;
  /// v_proj's H_kv·d_head columns and o_proj [H·d_head, d], unpacked.
  bool ovCircuitWeights(int layer, Mat& wv, Mat& wo) const override;
  /// concat·W_o (+ b_o), then Gemma 2/3's post-attention norm  [m, d].
  Mat attentionOutput(int layer, const Mat& concat) const override;

 private:
  friend class DecoderDecodeSession;
  friend class DecoderResumedLayers;
  void loadLayer(WeightSource& w, int layer);
  /// p > 0: rows [0, p) taken from iv.prefix's layer (prefix_reuse.h). keepOutputs false: the trace keeps no attention
  /// or MLP output (layer_outputs.h recomputes them).
  LayerTrace runLayer(int layer, const Mat& x, const RopeTables& rope, const Intervention& iv, bool keepMaps,
                      bool keepOutputs, int p = 0) const;
  Mat norm(const Mat& x, const WeightView& w) const;
  Mat mlp(const Mat& x, const DecoderLayerWeights& w) const;

  WeightView embed_;    ///< [vocab, d]
  WeightView unembed_;  ///< [vocab, d]: lm_head, or embed_ when tied
  WeightView finalNorm_;
  float embedScale_ = 1.0f;
  std::vector<DecoderLayerWeights> layers_;
};

}  // namespace attnlab
