#pragma once
// GPT-2 from a Hugging Face checkpoint. Pre-LayerNorm blocks, causal attention, learned positions:
//   h⁰ = wte[ids] + wpe[0..n)                                    [n, d]
//   a  = attn(LN₁(h)),  h ← h + a·W_proj + b_proj                  (c_attn fused: [d, 3d] → Q | K | V)
//   m  = gelu_new(LN₂(h)·W_fc + b_fc)·W_mproj + b_mproj,  h ← h + m
// Embeddings, biases and norms stay in the safetensors mapping; the four product weights of each layer
// are repacked at load (core/compute/packed_matrix.h). The final ln_f and the unembedding (lm_head, or the tied
// wte) are not run by forward(): unembedding() gives them to the prediction and attribution code.
#include <vector>

#include "core/checkpoint/hf_model.h"
#include "core/checkpoint/hf_weights.h"
#include "core/model/resumed_runs.h"

namespace attnlab {

struct Gpt2LayerWeights {
  WeightView ln1Gamma, ln1Beta, ln2Gamma, ln2Beta;  ///< [d]
  PackedMatrix attnW;                               ///< c_attn [d, 3d], repacked for products
  WeightView attnB;                                 ///< [3d]
  PackedMatrix projW;                               ///< attn.c_proj [d, d]
  WeightView projB;                                 ///< [d]
  PackedMatrix fcW;                                 ///< mlp.c_fc [d, inner]
  WeightView fcB;                                   ///< [inner]
  PackedMatrix mprojW;                              ///< mlp.c_proj [inner, d]
  WeightView mprojB;                                ///< [d]
};

class Gpt2Model : public HfModel, private ResumableLayers {
 public:
  /// Maps the weights (names with or without "transformer.") and repacks the product weights, reporting
  /// progress and honouring cancel per layer through `control`; throws InputError naming missing tensors
  /// or shapes that contradict config.json.
  Gpt2Model(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer, std::shared_ptr<SafetensorsSet> file,
            std::string name, const RunControl& control = {});

  Trace forward(const TokenizedText& text, const RunControl& control = {}, const Intervention& iv = {}) const override;
  std::vector<Vec> lastRowsWith(const TokenizedText& text, const Trace& base,
                                const std::vector<Intervention>& ivs) const override;
  std::vector<Mat> rowsWith(const TokenizedText& text, const Trace& base, const std::vector<Intervention>& ivs,
                            const std::vector<int>& rows) const override;
  /// Defined in gpt2_decode.cpp.
  std::unique_ptr<DecodeSession> startDecoding(const std::vector<int>& promptIds,
                                               const RunControl& control = {}) const override;
  /// wte [vocab, d].
  UnembeddingView tokenEmbeddings() const override;
  /// c_attn's V columns [d, d] and c_proj [d, d] (unpacked: 2·d² floats).
  bool ovCircuitWeights(int layer, Mat& wv, Mat& wo) const override;
  /// concat·W_proj + b_proj  [m, d].
  Mat attentionOutput(int layer, const Mat& concat) const override;

 private:
  friend class Gpt2DecodeSession;
  /// p > 0: rows [0, p) taken from iv.prefix's layer (prefix_reuse.h). keepOutputs false: the trace keeps no attention
  /// or MLP output (layer_outputs.h recomputes them).
  LayerTrace runLayer(int layer, const Mat& x, const Intervention& iv, bool keepMaps, bool keepOutputs,
                      int p = 0) const;
  /// act(LN₂(h)·W_fc + b_fc)·W_mproj + b_mproj   [n, d] → [n, d]
  Mat mlp(int layer, const Mat& h) const;
  float attentionScale(int layer) const;
  Mat queryKeyValue(int layer, const Mat& x) const override;
  HeadOptions headOptions(int layer) const override;
  Mat finishLayer(int layer, const Mat& x, const Mat& concat) const override;

  WeightView wte_, wpe_;  ///< [vocab, d], [positions, d]
  std::vector<Gpt2LayerWeights> layers_;
};

}  // namespace attnlab
