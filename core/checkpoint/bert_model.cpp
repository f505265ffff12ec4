#include "core/checkpoint/bert_model.h"

#include <cmath>
#include <utility>

#include "core/compute/heap_policy.h"
#include "core/model/attention_head.h"
#include "core/model/blocks.h"
#include "core/model/forward_hooks.h"

namespace attnlab {

BertModel::BertModel(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer, std::shared_ptr<SafetensorsSet> file,
                     std::string name, const RunControl& control)
    : HfModel(std::move(config), std::move(tokenizer), file, std::move(name)) {
  keepLargeBlocksInHeap();  // the forward pass's activations are hundreds of KB each
  if (config_.arch == HfArch::DistilBert) {
    WeightSource w(file, {"distilbert.", ""}, "embeddings.word_embeddings.weight", "DistilBERT");
    loadDistilBert(w, control);
    w.finish();
    loadMlmHead({"vocab_transform.", "vocab_layer_norm.", "vocab_projector.weight", "vocab_projector.bias"});
  } else {
    WeightSource w(file, {"bert.", ""}, "embeddings.word_embeddings.weight", "BERT");
    loadBert(w, control);
    w.finish();
    loadMlmHead({"cls.predictions.transform.dense.", "cls.predictions.transform.LayerNorm.",
                 "cls.predictions.decoder.weight", "cls.predictions.bias"});
  }
}

void BertModel::loadMlmHead(const std::vector<std::string>& names) {
  const std::string &dense = names[0], &norm = names[1], &decoder = names[2], &bias = names[3];
  if (!file_->find(bias)) return;  // a bare encoder (BertModel) or another head: no vocabulary to predict
  const Eigen::Index d = config_.dModel, vocab = config_.vocabSize;
  WeightSource w(file_, {""}, bias, "masked-LM head");
  Unembedding u;
  u.transformWeight = w.matrix(dense + "weight", d, d).matrix();
  u.transformBias = w.vector(dense + "bias", d).vector();
  switch (config_.activation) {
    case HfActivation::GeluErf:
      u.transformActivation = Unembedding::Activation::GeluErf;
      break;
    case HfActivation::GeluTanh:
      u.transformActivation = Unembedding::Activation::GeluTanh;
      break;
    case HfActivation::Relu:
      u.transformActivation = Unembedding::Activation::Relu;
      break;
  }
  u.norm = Unembedding::Norm::Layer;
  u.eps = config_.layerNormEps;
  u.gamma = w.vector(norm + "weight", norm + "gamma", d).vector();
  u.beta = w.vector(norm + "bias", norm + "beta", d).vector();
  u.bias = w.vector(bias, vocab).vector();
  // The decoder is tied to the word embeddings; a file that stores it separately (untied) is read as is.
  const WeightView e = w.has(decoder) ? w.matrix(decoder, vocab, d) : word_;
  w.finish();
  u.data = e.data;
  u.vocab = vocab;
  u.d = d;
  u.rowStride = d;
  u.colStride = 1;
  unembedding_ = std::move(u);
}

int BertModel::maskTokenId() const { return unembedding_.data ? vocabularyId("[MASK]") : -1; }

void BertModel::loadBert(WeightSource& w, const RunControl& control) {
  const HfConfig& c = config_;
  const Eigen::Index d = c.dModel, inner = c.dInner;
  word_ = w.matrix("embeddings.word_embeddings.weight", c.vocabSize, d);
  pos_ = w.matrix("embeddings.position_embeddings.weight", c.maxPositions, d);
  if (c.typeVocabSize > 0) type_ = w.matrix("embeddings.token_type_embeddings.weight", c.typeVocabSize, d);
  // Checkpoints converted from TensorFlow name LayerNorm parameters gamma/beta.
  embGamma_ = w.vector("embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma", d);
  embBeta_ = w.vector("embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta", d);
  for (int l = 0; l < c.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / c.layers);
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    BertLayerWeights lw;
    lw.qW = w.packed(p + "attention.self.query.weight", d, d, WeightSource::Stored::OutIn);
    lw.qB = w.vector(p + "attention.self.query.bias", d);
    lw.kW = w.packed(p + "attention.self.key.weight", d, d, WeightSource::Stored::OutIn);
    lw.kB = w.vector(p + "attention.self.key.bias", d);
    lw.vW = w.packed(p + "attention.self.value.weight", d, d, WeightSource::Stored::OutIn);
    lw.vB = w.vector(p + "attention.self.value.bias", d);
    lw.oW = w.packed(p + "attention.output.dense.weight", d, d, WeightSource::Stored::OutIn);
    lw.oB = w.vector(p + "attention.output.dense.bias", d);
    lw.ln1Gamma = w.vector(p + "attention.output.LayerNorm.weight", p + "attention.output.LayerNorm.gamma", d);
    lw.ln1Beta = w.vector(p + "attention.output.LayerNorm.bias", p + "attention.output.LayerNorm.beta", d);
    lw.iW = w.packed(p + "intermediate.dense.weight", inner, d, WeightSource::Stored::OutIn);
    lw.iB = w.vector(p + "intermediate.dense.bias", inner);
    lw.o2W = w.packed(p + "output.dense.weight", d, inner, WeightSource::Stored::OutIn);
    lw.o2B = w.vector(p + "output.dense.bias", d);
    lw.ln2Gamma = w.vector(p + "output.LayerNorm.weight", p + "output.LayerNorm.gamma", d);
    lw.ln2Beta = w.vector(p + "output.LayerNorm.bias", p + "output.LayerNorm.beta", d);
    layers_.push_back(std::move(lw));  // 28 MB of packed weights a layer in BERT-base
  }
}

void BertModel::loadDistilBert(WeightSource& w, const RunControl& control) {
  const HfConfig& c = config_;
  const Eigen::Index d = c.dModel, inner = c.dInner;
  word_ = w.matrix("embeddings.word_embeddings.weight", c.vocabSize, d);
  pos_ = w.matrix("embeddings.position_embeddings.weight", c.maxPositions, d);
  embGamma_ = w.vector("embeddings.LayerNorm.weight", d);
  embBeta_ = w.vector("embeddings.LayerNorm.bias", d);
  for (int l = 0; l < c.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / c.layers);
    const std::string p = "transformer.layer." + std::to_string(l) + ".";
    BertLayerWeights lw;
    lw.qW = w.packed(p + "attention.q_lin.weight", d, d, WeightSource::Stored::OutIn);
    lw.qB = w.vector(p + "attention.q_lin.bias", d);
    lw.kW = w.packed(p + "attention.k_lin.weight", d, d, WeightSource::Stored::OutIn);
    lw.kB = w.vector(p + "attention.k_lin.bias", d);
    lw.vW = w.packed(p + "attention.v_lin.weight", d, d, WeightSource::Stored::OutIn);
    lw.vB = w.vector(p + "attention.v_lin.bias", d);
    lw.oW = w.packed(p + "attention.out_lin.weight", d, d, WeightSource::Stored::OutIn);
    lw.oB = w.vector(p + "attention.out_lin.bias", d);
    lw.ln1Gamma = w.vector(p + "sa_layer_norm.weight", d);
    lw.ln1Beta = w.vector(p + "sa_layer_norm.bias", d);
    lw.iW = w.packed(p + "ffn.lin1.weight", inner, d, WeightSource::Stored::OutIn);
    lw.iB = w.vector(p + "ffn.lin1.bias", inner);
    lw.o2W = w.packed(p + "ffn.lin2.weight", d, inner, WeightSource::Stored::OutIn);
    lw.o2B = w.vector(p + "ffn.lin2.bias", d);
    lw.ln2Gamma = w.vector(p + "output_layer_norm.weight", d);
    lw.ln2Beta = w.vector(p + "output_layer_norm.bias", d);
    layers_.push_back(std::move(lw));  // 28 MB of packed weights a layer in BERT-base
  }
}

Trace BertModel::forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const {
  checkInput(text);
  checkIntervention(iv, config_.layers, config_.heads, static_cast<int>(text.ids.size()));
  Trace trace = startTrace(text, /*causal=*/false);
  const int n = static_cast<int>(text.ids.size());
  const bool keepMaps = planMapKeeping(iv.maps, n, config_.layers, config_.heads);
  const long long headColumns = static_cast<long long>(config_.heads) * config_.dHead();
  checkActivationMemory(n, config_.layers, activationFloatsPerToken(config_.dModel, headColumns, headColumns, true));

  // h⁰ = LN_emb(word[ids] + pos[0..n) + type[0])   [n, d]; every token is of type 0 (one sentence).
  Mat e(n, config_.dModel);
  if (wantsHook(iv.hooks, HookSite::Embed, -1)) {
    for (int i = 0; i < n; ++i) e.row(i) = word_.matrix().row(text.ids[i]);
    runHook(iv.hooks, HookSite::Embed, -1, e);  // W_E rows, before the positions and the embedding LayerNorm
    for (int i = 0; i < n; ++i) {
      e.row(i) += pos_.matrix().row(i);
      if (type_.data) e.row(i) += type_.matrix().row(0);
    }
  } else {
    for (int i = 0; i < n; ++i) {
      e.row(i) = word_.matrix().row(text.ids[i]) + pos_.matrix().row(i);
      if (type_.data) e.row(i) += type_.matrix().row(0);
    }
  }
  Mat h = layerNorm(e, embGamma_.vector(), embBeta_.vector(), config_.layerNormEps);
  trace.embeddings = h;
  for (int l = 0; l < config_.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / config_.layers);
    interveneOnTracedResidual(iv, l, trace, h);
    hookTracedResidual(iv, l, trace, h);
    trace.layers.push_back(runLayer(l, h, iv, keepMaps));
    h = trace.layers.back().residualOut;
  }
  interveneOnResidual(iv, config_.layers, trace.layers.back().residualOut);
  control.checkpoint(1.0);
  return trace;
}

LayerTrace BertModel::runLayer(int layer, const Mat& x, const Intervention& iv, bool keepMaps) const {
  const BertLayerWeights& w = layers_[layer];
  const int dh = config_.dHead();
  LayerTrace t;
  // Q = x·W_qᵀ + b_q and likewise K, V   [n, d]; head h uses columns h·d_head …
  Mat q = w.qW.affine(x, w.qB.vector());
  Mat k = w.kW.affine(x, w.kB.vector());
  Mat v = w.vW.affine(x, w.vB.vector());
  if (iv.hooks) {
    runHook(iv.hooks, HookSite::Q, layer, q);
    runHook(iv.hooks, HookSite::K, layer, k);
    runHook(iv.hooks, HookSite::V, layer, v);
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  t.heads = attendHeads(q, k, v, config_.heads, dh, scale, /*causal=*/false, t.concat, keepMaps);
  runAttentionHooks(iv.hooks, layer, t.heads, t.concat);
  interveneOnConcat(iv, layer, config_.heads, dh, t.concat);
  runHook(iv.hooks, HookSite::Z, layer, t.concat);
  t.attentionOut = w.oW.affine(t.concat, w.oB.vector());  // [n, d]
  runHook(iv.hooks, HookSite::AttnOut, layer, t.attentionOut);
  // hook_resid_mid: x + attn_out, before the post-attention LayerNorm (TransformerLens's BertBlock)
  Mat mid = x + t.attentionOut;
  runHook(iv.hooks, HookSite::ResidMid, layer, mid);
  const Mat h = layerNorm(mid, w.ln1Gamma.vector(), w.ln1Beta.vector(), config_.layerNormEps);

  // MLP: act(h·W_iᵀ + b_i)·W_o2ᵀ + b_o2   [n, inner] → [n, d]
  Mat hidden = w.iW.affine(h, w.iB.vector());
  applyActivation(hidden, config_.activation);
  t.mlpOut = w.o2W.affine(hidden, w.o2B.vector());
  runHook(iv.hooks, HookSite::MlpOut, layer, t.mlpOut);
  t.residualOut = layerNorm(Mat(h + t.mlpOut), w.ln2Gamma.vector(), w.ln2Beta.vector(), config_.layerNormEps);
  runHook(iv.hooks, HookSite::ResidPost, layer, t.residualOut);
  return t;
}

UnembeddingView BertModel::tokenEmbeddings() const {
  return UnembeddingView(word_.data, word_.rows, word_.cols,
                         Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(1, word_.cols));
}

bool BertModel::ovCircuitWeights(int layer, Mat& wv, Mat& wo) const {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return false;
  wv = layers_[static_cast<std::size_t>(layer)].vW.unpacked();
  wo = layers_[static_cast<std::size_t>(layer)].oW.unpacked();
  return true;
}

}  // namespace attnlab
