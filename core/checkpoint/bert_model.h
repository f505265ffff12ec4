#pragma once
// BERT (and DistilBERT) from a Hugging Face checkpoint. Post-LayerNorm blocks, bidirectional
// attention, learned positions, token type 0 for every token:
//   h⁰ = LN_emb(word[ids] + pos[0..n) + type[0])                  [n, d]
//   a  = attn(h)·W_oᵀ + b_o,          h ← LN₁(h + a)
//   m  = gelu(h·W_iᵀ + b_i)·W_o2ᵀ + b_o2,  h ← LN₂(h + m)
// nn.Linear stores W [out, in]; the product weights are repacked at load (core/compute/packed_matrix.h). The pooler is
// not run. The masked-LM head, when the checkpoint has one (BertForMaskedLM's cls.predictions.*, DistilBERT's
// vocab_*), is the model's Unembedding: logits = LN(act(h·W_Tᵀ + b_T))·Eᵀ + b, E the word embeddings (tied)
// unless the file has its own decoder weight.
#include <vector>

#include "core/checkpoint/hf_model.h"
#include "core/checkpoint/hf_weights.h"

namespace attnlab {

struct BertLayerWeights {
  PackedMatrix qW, kW, vW, oW;   ///< [d, d], stored [out, in]; repacked for products
  WeightView qB, kB, vB, oB;     ///< biases [d]
  WeightView ln1Gamma, ln1Beta;  ///< after attention
  PackedMatrix iW, o2W;          ///< intermediate d → inner, output inner → d
  WeightView iB, o2B;            ///< [inner], [d]
  WeightView ln2Gamma, ln2Beta;  ///< after the MLP
};

class BertModel : public HfModel {
 public:
  /// Maps the weights and repacks the product weights (progress and cancel per layer through `control`;
  /// BERT names with or without "bert.", DistilBERT names with or without
  /// "distilbert."); throws InputError naming missing tensors or shapes that contradict config.json.
  BertModel(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer, std::shared_ptr<SafetensorsSet> file,
            std::string name, const RunControl& control = {});

  Trace forward(const TokenizedText& text, const RunControl& control = {}, const Intervention& iv = {}) const override;
  /// [MASK]'s id when the checkpoint has a masked-LM head and the tokenizer a [MASK] token, else −1.
  int maskTokenId() const override;
  /// word_embeddings [vocab, d].
  UnembeddingView tokenEmbeddings() const override;
  /// attention.self.value and attention.output.dense as [d, d] x·W matrices, unpacked.
  bool ovCircuitWeights(int layer, Mat& wv, Mat& wo) const override;

 private:
  void loadBert(WeightSource& w, const RunControl& control);
  void loadDistilBert(WeightSource& w, const RunControl& control);
  /// Fills unembedding_ from the MLM head's tensors under `names` (transform dense, LayerNorm, decoder
  /// weight, decoder bias); leaves it empty when the file lacks the head's bias.
  void loadMlmHead(const std::vector<std::string>& names);
  LayerTrace runLayer(int layer, const Mat& x, const Intervention& iv, bool keepMaps) const;

  WeightView word_, pos_, type_;  ///< [vocab, d], [positions, d], [types, d] (type_ empty for DistilBERT)
  WeightView embGamma_, embBeta_;
  std::vector<BertLayerWeights> layers_;
};

}  // namespace attnlab
