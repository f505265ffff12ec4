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
#include "core/model/intervention.h"
#include "core/model/unembedding.h"

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

/// What forward() may take from an earlier run of the same model on the same source (encdec_run.cpp decides, by one
/// comparison): the encoder (its Trace, output and every cross-attention head's K and V, which depend on the source
/// alone) and the decoder's first `decoderRows` rows, which causal self-attention makes from the target's first rows
/// alone. Every pointer refers into that earlier run, which must outlive the call; null/0 = compute.
struct EncDecReuse {
  const Trace* encoder = nullptr;   ///< copied into the result (its heads' K and V shared, not copied)
  const Mat* encoderOut = nullptr;  ///< [n_src, d]: set together with encoder and cross
  const std::vector<CrossLayerTrace>* cross = nullptr;  ///< its K, V reused; with decoderRows its rows too
  const Trace* decoder = nullptr;                       ///< the earlier target's decoder Trace (token ids kept)
  const Mat* decoderOut = nullptr;                      ///< [n_earlier, d]
  const Mat* logits = nullptr;                          ///< [n_earlier, vocab], or empty
  int decoderRows = 0;  ///< target rows [0, p) taken from the earlier run: p < n_tgt, same ids
};

/// Heads switched off in an encoder–decoder's forward pass (issue 33): each stack's attention its own Intervention
/// (intervention.h; ablations only, zero or mean), applied to that attention's concatenated head outputs before its
/// output projection, as the single-text models do. `cross` names decoder layer.head of the cross-attention.
struct EncDecAblation {
  Intervention encoder, decoder, cross;
  bool empty() const { return encoder.ablate.empty() && decoder.ablate.empty() && cross.ablate.empty(); }
};

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
  /// `ablation`: heads switched off (EncDecAblation); throws InputError for a head the stack does not have, or
  /// resample mode (it needs a run of another pair of texts).
  EncDecTrace forward(const std::vector<int>& source, const std::vector<int>& target, bool withLogits = true,
                      const EncDecAblation& ablation = {}) const;
  /// The same pass taking what `reuse` holds from an earlier run instead of computing it (equal to a full pass to
  /// float rounding): a target edit then runs only the decoder, an edit at its end only the new rows (products, FFN,
  /// logits) — attention is recomputed over every row, so the maps are whole. `source` must be the earlier run's when
  /// reuse.encoder is set (and the earlier encoder made with the same encoder ablation: encdec_run.cpp's encDecReuse
  /// decides); throws std::logic_error for a decoderRows the earlier run cannot give. With any ablation the decoder's
  /// rows are all recomputed (mean ablation averages over every target row).
  EncDecTrace forward(const std::vector<int>& source, const std::vector<int>& target, const EncDecReuse& reuse,
                      bool withLogits = true, const EncDecAblation& ablation = {}) const;
  /// The encoder's output [n_src, d] alone.
  Mat encode(const std::vector<int>& source) const;
  /// Next-token logits [n, vocab] of decoder output rows [n, d].
  Mat logits(const Mat& decoderOut) const;
  /// The decoder's final step as an Unembedding (unembedding.h), read on the stream after a decoder layer (before
  /// T5's final norm): what the Prediction view's lens decodes, and what logits() computes on the last layer's
  /// stream (to float rounding). T5 (pre-norm): the final RMSNorm, its scale γ multiplied by the d^-0.5 rescale of a
  /// tied lm_head (γ·s ⊙ x/σ · W_Uᵀ = s·(γ ⊙ x/σ)·W_Uᵀ), then lm_head. Marian/BART (post-LN): no norm — every layer's
  /// output already leaves through a LayerNorm, and the model applies none after the last — lm_head plus
  /// final_logits_bias. W_U is viewed in the checkpoint's storage.
  const Unembedding& decoderUnembedding() const { return unembedding_; }
  /// W_O of decoder layer `layer`'s self-attention (or cross-attention) as a dense [H·d_head, d]: head h's rows
  /// h·d_head … (h + 1)·d_head − 1 carry its output into the stream (direct logit attribution, encdec_attribution.h).
  Mat decoderOutputProjection(int layer, bool cross) const;

  /// Step-by-step decoding with cached keys and values: the encoder runs once and each layer's cross K and V are
  /// made once; each step() runs one new target token through the decoder. The session keeps the model alive (it
  /// holds a shared owner); throws std::logic_error for a model no shared_ptr owns.
  std::unique_ptr<EncDecDecodeSession> startDecoding(const std::vector<int>& source) const;
  /// Greedy generation: starting from decoder_start_token_id, appends the argmax of each step's logits, after the
  /// folder's generation rules (config().generation: bad words, forced first / last token, min length, no repeated
  /// n-grams, as transformers' generate(max_new_tokens = maxNewTokens, num_beams = 1) applies them), until
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
  /// `iv`: the encoder's ablations (nullptr: none).
  LayerTrace encoderLayer(int layer, const Mat& x, const std::vector<Mat>& bias,
                          const Intervention* iv = nullptr) const;
  /// Decoder layer `layer` on stream rows [p, n) (y holds all n rows; rows [0, p) and their Q/K/V come from
  /// `prevSelf` / `prevCross` when p > 0); cross K and V from `kvFrom`'s heads when given, else made from encOut.
  /// `self` / `crossIv`: the ablations of its two attentions (nullptr: none; only with p = 0).
  LayerTrace decoderLayer(int layer, const Mat& y, const Mat& encOut, const std::vector<Mat>& bias,
                          CrossLayerTrace& cross, int p = 0, const LayerTrace* prevSelf = nullptr,
                          const CrossLayerTrace* prevCross = nullptr, const CrossLayerTrace* kvFrom = nullptr,
                          const Intervention* self = nullptr, const Intervention* crossIv = nullptr) const;
  /// T5's final norm of a stack's last residual (the stream itself for the post-LN families).
  Mat stackOutput(bool decoder, const Mat& x) const;
  /// Fills unembedding_ from lmHead_, finalBias_ and decFinalNorm_, and logitsHead_ (the constructor's last step).
  void makeUnembedding();

  EncDecConfig config_;
  std::shared_ptr<SafetensorsSet> files_;
  WeightView encEmbed_, decEmbed_, lmHead_;  ///< [vocab, d], [target vocab, d], [target vocab, d]
  Vec finalBias_;                            ///< final_logits_bias  [target vocab]
  /// lm_head (with final_logits_bias, no norm) as logits() applies it to the final stream: several rows through its
  /// packed copy (made on the first such readout, shared with unembedding_), one row through the row-major view.
  Unembedding logitsHead_;
  WeightView encPos_, decPos_;                                        ///< BART's learned positions [max + 2, d]
  WeightView encEmbNormW_, encEmbNormB_, decEmbNormW_, decEmbNormB_;  ///< BART's layernorm_embedding
  WeightView encRelBias_, decRelBias_;      ///< T5's relative_attention_bias  [buckets, heads]
  WeightView encFinalNorm_, decFinalNorm_;  ///< T5's final_layer_norm  [d]
  std::vector<EncDecLayerWeights> encoder_, decoder_;
  Unembedding unembedding_;  ///< decoderUnembedding()
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
