#pragma once
// Marian, BART and T5 encoder–decoders (issue 33) from a Hugging Face checkpoint folder. Marian/BART: post-LN
// blocks, rows are tokens:
//   encoder layer:  x ← LN(x + SelfAttn(x));  x ← LN(x + fc2(act(fc1(x))))            bidirectional
//   decoder layer:  y ← LN(y + SelfAttn(y));  y ← LN(y + CrossAttn(y, enc));  y ← LN(y + fc2(act(fc1(y))))  causal
//   attention: q = y·W_qᵀ + b, k, v likewise (cross: from the encoder's output), head h:
//              softmax(q_h·k_hᵀ/√d_head)·v_h, out = concat·W_oᵀ + b
//   embeddings: table[id]·(√d if scale_embedding) + position (Marian: sinusoids computed; BART: learned row p + 2,
//              then layernorm_embedding)
//   logits = y·lm_headᵀ + final_logits_bias
// T5: pre-LN with RMSNorm (x ← x + f(RMSNorm(x)), a final RMSNorm per stack), no biases, scores q·kᵀ + b_h(j − i)
// with b from the first block's relative_attention_bias (bucketed; bidirectional in the encoder, causal in the
// decoder; none in cross-attention), FF wo(relu(wi·x)) or wo(gelu_new(wi_0·x) ⊙ wi_1·x), logits = y·d^-0.5·sharedᵀ
// (tied) or y·lm_headᵀ.
// Products packed at load (q|k|v of self-attention and k|v of cross-attention stacked into one product each).
#include <memory>
#include <string>
#include <vector>

#include "core/checkpoint/encdec_config.h"
#include "core/checkpoint/hf_weights.h"
#include "core/model/encdec_trace.h"

namespace attnlab {

struct EncDecAttentionWeights {
  PackedMatrix qkvW;  ///< self: [d, 3a] (q | k | v), a = heads·d_head; cross: [d, a] q only
  Vec qkvB;           ///< biases (empty for T5)
  PackedMatrix kvW;   ///< cross only: [d, 2a] (k | v), applied to the encoder's output
  Vec kvB;
  PackedMatrix oW;  ///< [a, d]
  Vec oB;
  WeightView normW, normB;  ///< the LayerNorm after the residual add (T5: the RMSNorm before; no bias)  [d]
};

struct EncDecLayerWeights {
  EncDecAttentionWeights self, cross;  ///< cross only in the decoder
  PackedMatrix fc1W, fc2W;             ///< [d, ffn] (T5 gated: [d, 2·ffn], wi_0 | wi_1), [ffn, d]
  Vec fc1B, fc2B;
  WeightView normW, normB;  ///< final_layer_norm  [d]
};

class EncDecDecodeSession;

/// Owned by a shared_ptr (open() gives one): a decoding session shares that ownership, so it may outlive every other
/// owner of the model.
class EncDecModel : public std::enable_shared_from_this<EncDecModel> {
 public:
  /// Maps and packs the weights; throws InputError listing missing tensors or naming a shape that contradicts
  /// config.json.
  EncDecModel(EncDecConfig config, std::shared_ptr<SafetensorsSet> files);
  /// config.json and the weights of folder `dir` (same messages as the other families' folders).
  static std::shared_ptr<EncDecModel> open(const std::string& dir);

  const EncDecConfig& config() const { return config_; }
  /// The safetensors the weights were read from (their headers: the model card's parameters and bytes).
  const SafetensorsSet* weightFiles() const { return files_.get(); }

  /// Both texts' traces with every map: `source` ids of the encoder's vocabulary, `target` ids of the decoder's
  /// (usually starting with decoder_start_token_id). Throws InputError for an empty text, an id out of range or a
  /// text longer than max_position_embeddings. `withLogits` false leaves EncDecTrace::logits empty: the maps alone
  /// (n_tgt · d · vocab multiply-adds less: 0.9 G of opus-mt's 58k vocabulary at 31 target tokens).
  EncDecTrace forward(const std::vector<int>& source, const std::vector<int>& target, bool withLogits = true) const;
  /// The encoder's output [n_src, d] alone.
  Mat encode(const std::vector<int>& source) const;
  /// Next-token logits [n, vocab] of decoder output rows [n, d].
  Mat logits(const Mat& decoderOut) const;

  /// Step-by-step decoding with cached keys and values: the encoder runs once and each layer's cross K and V are
  /// made once; each step() runs one new target token through the decoder. The session keeps the model alive (it
  /// holds a shared owner); throws std::logic_error for a model no shared_ptr owns.
  std::unique_ptr<EncDecDecodeSession> startDecoding(const std::vector<int>& source) const;
  /// Greedy generation: starting from decoder_start_token_id, appends the argmax of each step's logits until
  /// eos_token_id (included) or `maxNewTokens`. Returns the appended ids.
  std::vector<int> generateGreedy(const std::vector<int>& source, int maxNewTokens) const;

 private:
  friend class EncDecDecodeSession;
  EncDecAttentionWeights loadAttention(WeightSource& w, const std::string& p, bool cross);
  EncDecLayerWeights loadLayer(WeightSource& w, const std::string& stack, int layer);
  /// Embedded rows [n, d] of `ids` at positions first … first + n − 1.
  Mat embed(const WeightView& table, const std::string& stack, const std::vector<int>& ids, int first, int vocab) const;
  EncDecAttentionWeights loadT5Attention(WeightSource& w, const std::string& p, bool cross, int heads, int dh);
  EncDecLayerWeights loadT5Layer(WeightSource& w, const std::string& stack, int layer);
  /// LayerNorm (Marian/BART) or T5's RMSNorm.
  Mat layerNorm(const Mat& x, const WeightView& w, const WeightView& b) const;
  /// T5's position bias of each head [n_q, n_k] for queries at first … first + n_q − 1 over keys 0 … n_k − 1;
  /// empty for the other families.
  std::vector<Mat> positionBias(bool decoder, int first, int queries, int keys) const;
  Mat feedForward(const Mat& x, const EncDecLayerWeights& w) const;
  void checkIds(const std::vector<int>& ids, int vocab, const char* what) const;
  LayerTrace encoderLayer(int layer, const Mat& x, const std::vector<Mat>& bias) const;
  LayerTrace decoderLayer(int layer, const Mat& y, const Mat& encOut, const std::vector<Mat>& bias,
                          CrossLayerTrace& cross) const;
  /// T5's final norm of a stack's last residual (the stream itself for the post-LN families).
  Mat stackOutput(bool decoder, const Mat& x) const;

  EncDecConfig config_;
  std::shared_ptr<SafetensorsSet> files_;
  WeightView encEmbed_, decEmbed_, lmHead_;  ///< [vocab, d], [target vocab, d], [target vocab, d]
  Vec finalBias_;                            ///< final_logits_bias  [target vocab]
  WeightView encPos_, decPos_;               ///< BART's learned positions [max + 2, d]
  WeightView encEmbNormW_, encEmbNormB_, decEmbNormW_, decEmbNormB_;  ///< BART's layernorm_embedding
  WeightView encRelBias_, decRelBias_;      ///< T5's relative_attention_bias  [buckets, heads]
  WeightView encFinalNorm_, decFinalNorm_;  ///< T5's final_layer_norm  [d]
  std::vector<EncDecLayerWeights> encoder_, decoder_;
};

/// One source text being translated: cross K/V of every decoder layer made at start, self K/V appended per step.
/// Holds a shared owner of its model: valid after the caller has let go of the model.
class EncDecDecodeSession {
 public:
  EncDecDecodeSession(std::shared_ptr<const EncDecModel> model, const std::vector<int>& source);
  /// Runs target token `id` at the next position; returns its next-token logits [target vocab].
  Vec step(int id);
  int position() const { return position_; }
  const Mat& encoderOutput() const { return encOut_; }

 private:
  std::shared_ptr<const EncDecModel> owner_;
  const EncDecModel& m_;              ///< *owner_
  Mat encOut_;                        ///< [n_src, d]
  std::vector<Mat> crossK_, crossV_;  ///< per decoder layer  [n_src, d]
  std::vector<Mat> selfK_, selfV_;    ///< per decoder layer  [position, d], grown by one row a step
  int position_ = 0;
};

}  // namespace attnlab
