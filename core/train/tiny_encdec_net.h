#pragma once
// The trainable tiny encoder–decoder of the toy translation tasks (issue 33), in BART's layout so the trained
// weights save as a Hugging Face checkpoint that EncDecModel opens (tiny_encdec_export.h). Post-LN blocks, rows are
// tokens; B sequences of one source length n_s and one target length n_t are stacked (sequence b owns rows
// b·n … b·n + n − 1), so no padding or masks are needed:
//   embeddings     x = LN_emb(E[id] + P[pos + 2])       E shared by both stacks and the output (tied)  [B·n, d]
//   encoder layer  x ← LN(x + SelfAttn(x));  x ← LN(x + fc2(relu(fc1(x))))                    bidirectional
//   decoder layer  y ← LN(y + SelfAttn(y));  y ← LN(y + CrossAttn(y, enc));  y ← LN(y + FF(y))  causal self-attention
//   attention      q, k, v = x·W + b;  head h: softmax(q_h·k_hᵀ/√d_h)·v_h;  out = concat·W_o + b_o
//   logits         y·Eᵀ                                                                         [B·n_t, V]
// Weights are [in, out] here (x·W); Hugging Face's Linear stores [out, in], so the export transposes them.
// Instantiated for float (training) and double (finite-difference checks).
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/train/tiny_layer_norm.h"

namespace attnlab {

/// BART's special ids, which the exported tokenizer and config.json name: <s> 0 (unused), <pad> 1, </s> 2 (the end
/// of every source and target, and the decoder's start token, as BART's decoder_start_token_id), <unk> 3; the
/// task's symbols follow from 4.
inline constexpr int kEncDecBos = 0, kEncDecPad = 1, kEncDecEos = 2, kEncDecUnk = 3, kEncDecFirstSymbol = 4;

struct TinyEncDecConfig {
  int symbols = 20;    ///< task symbols (ids kEncDecFirstSymbol …)
  int maxLength = 10;  ///< longest source string (tokens before </s>)
  int encoderLayers = 1, decoderLayers = 1;
  int heads = 2;
  int dModel = 32;
  int ffn = 64;
  uint64_t seed = 1;  ///< initial weights (and the trainer's batches)

  int vocab() const { return kEncDecFirstSymbol + symbols; }
  /// max_position_embeddings: a source of maxLength symbols + </s>, a target of </s> + maxLength symbols.
  int maxPositions() const { return maxLength + 1; }
  int dHead() const { return dModel / heads; }
};

/// Throws InputError naming the first field out of range (layers 1–4, heads 1–8 dividing d, d 4–128, …).
void validate(const TinyEncDecConfig& c);

template <typename S>
struct TinyEncDecAttentionParams {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  M wq, bq, wk, bk, wv, bv, wo, bo;  ///< [d, d] and [d, 1]
};

template <typename S>
struct TinyEncDecLayerParams {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  TinyEncDecAttentionParams<S> self, cross;  ///< cross only in the decoder
  M selfNormGamma, selfNormBeta;             ///< [d, 1]
  M crossNormGamma, crossNormBeta;           ///< decoder only  [d, 1]
  M w1, b1, w2, b2;                          ///< [d, ffn], [ffn, 1], [ffn, d], [d, 1]
  M finalNormGamma, finalNormBeta;           ///< [d, 1]
};

/// What a tensor is, for the export: Linear weights are transposed to Hugging Face's [out, in].
enum class TinyEncDecTensor { Table, Linear, Vector };

template <typename S>
struct TinyEncDecParams {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  M shared;          ///< [V, d]
  M encPos, decPos;  ///< [maxPositions + 2, d] (BART's offset 2: rows 0 and 1 are never used)
  M encEmbNormGamma, encEmbNormBeta, decEmbNormGamma, decEmbNormBeta;  ///< [d, 1]
  std::vector<TinyEncDecLayerParams<S>> encoder, decoder;

  /// f(name, tensor, kind) for every tensor in a fixed order; names are BART's safetensors names.
  template <typename F>
  void forEach(F&& f) {
    visit(*this, f);
  }
  template <typename F>
  void forEach(F&& f) const {
    visit(*this, f);
  }
  TinyEncDecParams zerosLike() const {
    TinyEncDecParams z = *this;
    z.forEach([](const std::string&, M& t, TinyEncDecTensor) { t.setZero(); });
    return z;
  }
  long long parameterCount() const {
    long long n = 0;
    forEach([&](const std::string&, const M& t, TinyEncDecTensor) { n += t.size(); });
    return n;
  }
  template <typename T>
  TinyEncDecParams<T> cast() const {
    TinyEncDecParams<T> out;
    out.encoder.resize(encoder.size()), out.decoder.resize(decoder.size());
    std::vector<const M*> from;
    forEach([&](const std::string&, const M& t, TinyEncDecTensor) { from.push_back(&t); });
    std::size_t i = 0;
    out.forEach([&](const std::string&, Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& t, TinyEncDecTensor) {
      t = from[i++]->template cast<T>();
    });
    return out;
  }

 private:
  template <typename P, typename F>
  static void visit(P& p, F& f) {
    using K = TinyEncDecTensor;
    f("model.shared.weight", p.shared, K::Table);
    for (const char* stack : {"encoder", "decoder"}) {
      const bool dec = stack[0] == 'd';
      const std::string s = std::string("model.") + stack + ".";
      f(s + "embed_positions.weight", dec ? p.decPos : p.encPos, K::Table);
      f(s + "layernorm_embedding.weight", dec ? p.decEmbNormGamma : p.encEmbNormGamma, K::Vector);
      f(s + "layernorm_embedding.bias", dec ? p.decEmbNormBeta : p.encEmbNormBeta, K::Vector);
      auto& layers = dec ? p.decoder : p.encoder;
      for (std::size_t l = 0; l < layers.size(); ++l) {
        auto& L = layers[l];
        const std::string q = s + "layers." + std::to_string(l) + ".";
        auto attention = [&](const std::string& a, auto& A) {
          f(q + a + ".q_proj.weight", A.wq, K::Linear), f(q + a + ".q_proj.bias", A.bq, K::Vector);
          f(q + a + ".k_proj.weight", A.wk, K::Linear), f(q + a + ".k_proj.bias", A.bk, K::Vector);
          f(q + a + ".v_proj.weight", A.wv, K::Linear), f(q + a + ".v_proj.bias", A.bv, K::Vector);
          f(q + a + ".out_proj.weight", A.wo, K::Linear), f(q + a + ".out_proj.bias", A.bo, K::Vector);
        };
        attention("self_attn", L.self);
        f(q + "self_attn_layer_norm.weight", L.selfNormGamma, K::Vector);
        f(q + "self_attn_layer_norm.bias", L.selfNormBeta, K::Vector);
        if (dec) {
          attention("encoder_attn", L.cross);
          f(q + "encoder_attn_layer_norm.weight", L.crossNormGamma, K::Vector);
          f(q + "encoder_attn_layer_norm.bias", L.crossNormBeta, K::Vector);
        }
        f(q + "fc1.weight", L.w1, K::Linear), f(q + "fc1.bias", L.b1, K::Vector);
        f(q + "fc2.weight", L.w2, K::Linear), f(q + "fc2.bias", L.b2, K::Vector);
        f(q + "final_layer_norm.weight", L.finalNormGamma, K::Vector);
        f(q + "final_layer_norm.bias", L.finalNormBeta, K::Vector);
      }
    }
  }
};

/// Initial weights from the config's seed: the tables N(0, 1/d), projections N(0, 1/fan_in), LayerNorm γ = 1,
/// β = 0, biases 0. Deterministic for a seed.
TinyEncDecParams<float> initTinyEncDecParams(const TinyEncDecConfig& c);

template <typename S>
struct TinyEncDecAttentionCache {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  M q, k, v;                 ///< [B·n_q, d], [B·n_k, d], [B·n_k, d]
  std::vector<M> attention;  ///< per (sequence b, head h) at b·H + h: [n_q, n_k], rows = queries
  M concat;                  ///< heads' outputs side by side  [B·n_q, d]
};

template <typename S>
struct TinyEncDecLayerCache {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  M xIn;  ///< [B·n, d]
  TinyEncDecAttentionCache<S> self, cross;
  TinyLayerNormCache<S> selfNorm, crossNorm, finalNorm;
  M afterSelf, afterCross;  ///< the streams after each attention's LayerNorm  [B·n, d]
  M hidden, act;            ///< fc1's output and relu of it  [B·n, ffn]
  M xOut;                   ///< [B·n, d]
};

template <typename S>
struct TinyEncDecForward {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  int batch = 0, sourceTokens = 0, targetTokens = 0;
  TinyLayerNormCache<S> encEmbNorm, decEmbNorm;
  M encX0, decX0;  ///< after layernorm_embedding
  std::vector<TinyEncDecLayerCache<S>> encoder, decoder;
  M encOut, decOut;  ///< the stacks' outputs  [B·n_s, d], [B·n_t, d]
  M logits;          ///< [B·n_t, V]
};

/// Runs B = batch pairs: source ids [B·n_s] row-major, target (decoder input) ids [B·n_t]. Ids must lie in
/// [0, V) and lengths ≤ maxPositions (callers check).
template <typename S>
void tinyEncDecForward(const TinyEncDecConfig& c, const TinyEncDecParams<S>& p, const int* source, const int* target,
                       int batch, int sourceTokens, int targetTokens, TinyEncDecForward<S>& out);

/// Mean cross-entropy of the logits against `labels` [B·n_t] (every row scored), divided by `normalizer` instead of
/// the row count when > 0 (threads' chunks of one batch add up to its mean). Writes dLoss/dLogits.
template <typename S>
double tinyEncDecCrossEntropy(const TinyEncDecForward<S>& f, const int* labels, double normalizer,
                              Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& dLogits);

/// Back-propagates dLogits, adding every parameter's gradient into `grads` (shapes of p, e.g. p.zerosLike()).
template <typename S>
void tinyEncDecBackward(const TinyEncDecConfig& c, const TinyEncDecParams<S>& p, const TinyEncDecForward<S>& f,
                        const int* source, const int* target,
                        const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& dLogits, TinyEncDecParams<S>& grads);

}  // namespace attnlab
