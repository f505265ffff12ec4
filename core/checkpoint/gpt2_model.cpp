#include "core/checkpoint/gpt2_model.h"

#include <cmath>
#include <utility>

#include "core/compute/heap_policy.h"
#include "core/model/attention_head.h"
#include "core/model/blocks.h"
#include "core/model/forward_hooks.h"
#include "core/model/prefix_reuse.h"

namespace attnlab {

Gpt2Model::Gpt2Model(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer, std::shared_ptr<SafetensorsSet> file,
                     std::string name, const RunControl& control)
    : HfModel(std::move(config), std::move(tokenizer), file, std::move(name)) {
  keepLargeBlocksInHeap();  // the forward pass's activations are hundreds of KB each
  const HfConfig& c = config_;
  WeightSource w(file, {"transformer.", ""}, "wte.weight", "GPT-2");
  const Eigen::Index d = c.dModel, inner = c.dInner;
  wte_ = w.matrix("wte.weight", c.vocabSize, d);
  wpe_ = w.matrix("wpe.weight", c.maxPositions, d);
  for (int l = 0; l < c.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / c.layers);  // packing GPT-2 small takes ~0.4 s
    const std::string p = "h." + std::to_string(l) + ".";
    Gpt2LayerWeights lw;
    lw.ln1Gamma = w.vector(p + "ln_1.weight", d);
    lw.ln1Beta = w.vector(p + "ln_1.bias", d);
    lw.attnW = w.packed(p + "attn.c_attn.weight", d, 3 * d, WeightSource::Stored::InOut);
    lw.attnB = w.vector(p + "attn.c_attn.bias", 3 * d);
    lw.projW = w.packed(p + "attn.c_proj.weight", d, d, WeightSource::Stored::InOut);
    lw.projB = w.vector(p + "attn.c_proj.bias", d);
    lw.ln2Gamma = w.vector(p + "ln_2.weight", d);
    lw.ln2Beta = w.vector(p + "ln_2.bias", d);
    lw.fcW = w.packed(p + "mlp.c_fc.weight", d, inner, WeightSource::Stored::InOut);
    lw.fcB = w.vector(p + "mlp.c_fc.bias", inner);
    lw.mprojW = w.packed(p + "mlp.c_proj.weight", inner, d, WeightSource::Stored::InOut);
    lw.mprojB = w.vector(p + "mlp.c_proj.bias", d);
    layers_.push_back(std::move(lw));  // 28 MB of packed weights a layer in GPT-2 small
  }
  w.finish();
  // The final LayerNorm and the unembedding: lm_head.weight when the file has one, else the tied wte.
  Unembedding& u = unembedding_;
  u.norm = Unembedding::Norm::Layer;
  u.eps = c.layerNormEps;
  if (w.has("ln_f.weight") && w.has("ln_f.bias")) {
    u.gamma = w.vector("ln_f.weight", d).vector();
    u.beta = w.vector("ln_f.bias", d).vector();
    const TensorInfo* head = w.files()->find("lm_head.weight");
    const WeightView unembed =
        head ? WeightSource(w.files(), {""}, "lm_head.weight", "GPT-2").matrix("lm_head.weight", c.vocabSize, d) : wte_;
    u.data = unembed.data;
    u.vocab = c.vocabSize;
    u.d = d;
    u.rowStride = d;
    u.colStride = 1;
  }
}

Trace Gpt2Model::forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const {
  checkInput(text);
  checkIntervention(iv, config_.layers, config_.heads, static_cast<int>(text.ids.size()));
  Trace trace = startTrace(text, /*causal=*/true);
  const int n = static_cast<int>(text.ids.size());
  const bool keepMaps = planMapKeeping(iv.maps, n, config_.layers, config_.heads);
  // A long input's trace keeps no attention or MLP outputs: this model recomputes them (layer_outputs.h). Not with a
  // residual patch: it is recorded in the stream a layer reads (Trace::layerInput), which output − input would mix in.
  trace.outputsFrom = keepMaps || iv.residualLayer >= 0 ? nullptr : weak_from_this().lock();
  const bool keepOutputs = trace.outputsFrom == nullptr;
  const long long headColumns = static_cast<long long>(config_.heads) * config_.dHead();
  checkActivationMemory(n, config_.layers,
                        activationFloatsPerToken(config_.dModel, headColumns, headColumns, keepOutputs));
  // h⁰ = wte[ids] + wpe[0..n)   [n, d]
  Mat h(n, config_.dModel);
  if (wantsHook(iv.hooks, HookSite::Embed, -1) || wantsHook(iv.hooks, HookSite::PosEmbed, -1)) {
    Mat e(n, config_.dModel);  // W_E rows and W_pos rows, each offered to its hook
    for (int i = 0; i < n; ++i) {
      e.row(i) = wte_.matrix().row(text.ids[i]);
      h.row(i) = wpe_.matrix().row(i);
    }
    runHook(iv.hooks, HookSite::Embed, -1, e);
    runHook(iv.hooks, HookSite::PosEmbed, -1, h);
    h += e;
  } else {
    for (int i = 0; i < n; ++i) h.row(i) = wte_.matrix().row(text.ids[i]) + wpe_.matrix().row(i);
  }
  trace.embeddings = h;
  const int p = reusablePrefixRows(iv, text.ids, config_.layers, keepMaps);  // rows taken from the last run
  for (int l = copyReusedLayers(iv, text.ids, trace, h); l < config_.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / config_.layers);
    interveneOnTracedResidual(iv, l, trace, h);
    hookTracedResidual(iv, l, trace, h);
    trace.layers.push_back(runLayer(l, h, iv, keepMaps, keepOutputs, p));
    h = trace.layers.back().residualOut;
  }
  interveneOnResidual(iv, config_.layers, trace.layers.back().residualOut);
  control.checkpoint(1.0);
  return trace;
}

LayerTrace Gpt2Model::runLayer(int layer, const Mat& x, const Intervention& iv, bool keepMaps, bool keepOutputs,
                               int p) const {
  const int d = config_.dModel, dh = config_.dHead(), heads = config_.heads;
  LayerTrace t;
  // qkv = LN₁(x)·W_attn + b   [n − p, 3d] for the rows not taken from the last run; columns [0, d) are Q, [d, 2d) K,
  // [2d, 3d) V, head h at h·d_head.
  Mat qkv = queryKeyValue(layer, p > 0 ? Mat(x.bottomRows(x.rows() - p)) : x);
  if (iv.hooks) {
    runHook(iv.hooks, HookSite::Q, layer, qkv.middleCols(0, d));
    runHook(iv.hooks, HookSite::K, layer, qkv.middleCols(d, d));
    runHook(iv.hooks, HookSite::V, layer, qkv.middleCols(2 * d, d));
  }
  const float scale = attentionScale(layer);
  if (p == 0) {
    t.heads = attendHeads(qkv.middleCols(0, d), qkv.middleCols(d, d), qkv.middleCols(2 * d, d), heads, dh, scale,
                          /*causal=*/true, t.concat, keepMaps);
  } else {
    const LayerTrace& prev = iv.prefix->layers[static_cast<std::size_t>(layer)];
    t.heads = attendHeads(stackHeadRows(prev, HeadPart::Q, p, qkv.middleCols(0, d), heads, 1, dh),
                          stackHeadRows(prev, HeadPart::K, p, qkv.middleCols(d, d), heads, 1, dh),
                          stackHeadRows(prev, HeadPart::V, p, qkv.middleCols(2 * d, d), heads, 1, dh), heads, dh, scale,
                          /*causal=*/true, t.concat, /*keepMaps=*/false, &prev, p);  // outputs < p: prev's
  }
  runAttentionHooks(iv.hooks, layer, t.heads, t.concat);
  interveneOnConcat(iv, layer, heads, dh, t.concat);
  runHook(iv.hooks, HookSite::Z, layer, t.concat);
  const Eigen::Index m = x.rows() - p;  // rows computed here
  Mat attentionOut = attentionOutput(layer, t.concat.bottomRows(m));
  runHook(iv.hooks, HookSite::AttnOut, layer, attentionOut);
  Mat h = x.bottomRows(m) + attentionOut;
  runHook(iv.hooks, HookSite::ResidMid, layer, h);
  Mat mlpOut = mlp(layer, h);
  runHook(iv.hooks, HookSite::MlpOut, layer, mlpOut);
  if (p == 0) {
    t.residualOut = h + mlpOut;
    runHook(iv.hooks, HookSite::ResidPost, layer, t.residualOut);
    if (keepOutputs) {
      t.attentionOut = attentionOut;
      t.mlpOut = mlpOut;
    }
  } else {
    const LayerTrace& prev = iv.prefix->layers[static_cast<std::size_t>(layer)];
    t.residualOut = stackRows(prev.residualOut, p, h + mlpOut);
    if (keepOutputs) {
      t.attentionOut = stackRows(prev.attentionOut, p, attentionOut);
      t.mlpOut = stackRows(prev.mlpOut, p, mlpOut);
    }
  }
  return t;
}

Mat Gpt2Model::attentionOutput(int layer, const Mat& concat) const {
  const Gpt2LayerWeights& w = layers_[static_cast<std::size_t>(layer)];
  return w.projW.affine(concat, w.projB.vector());
}

Mat Gpt2Model::mlp(int layer, const Mat& h) const {
  const Gpt2LayerWeights& w = layers_[layer];
  return inRowBlocks(h, kMlpRowBlock, [&](const Mat& rows) {
    Mat hidden =
        w.fcW.affine(layerNorm(rows, w.ln2Gamma.vector(), w.ln2Beta.vector(), config_.layerNormEps), w.fcB.vector());
    applyActivation(hidden, config_.activation);  // [rows, inner]
    return w.mprojW.affine(hidden, w.mprojB.vector());
  });
}

float Gpt2Model::attentionScale(int layer) const {
  float scale = config_.scaleAttention ? 1.0f / std::sqrt(static_cast<float>(config_.dHead())) : 1.0f;
  if (config_.scaleByInverseLayer) scale /= static_cast<float>(layer + 1);
  return scale;
}

Mat Gpt2Model::queryKeyValue(int layer, const Mat& x) const {
  const Gpt2LayerWeights& w = layers_[layer];
  return w.attnW.affine(layerNorm(x, w.ln1Gamma.vector(), w.ln1Beta.vector(), config_.layerNormEps), w.attnB.vector());
}

HeadOptions Gpt2Model::headOptions(int layer) const {
  HeadOptions o;
  o.scale = attentionScale(layer);
  return o;
}

Mat Gpt2Model::finishLayer(int layer, const Mat& x, const Mat& concat) const {
  const Mat h = x + attentionOutput(layer, concat);
  return h + mlp(layer, h);
}

std::vector<Vec> Gpt2Model::lastRowsWith(const TokenizedText& text, const Trace& base,
                                         const std::vector<Intervention>& ivs) const {
  checkInput(text);
  return resumedLastRows(*this, base, ivs);
}

std::vector<Mat> Gpt2Model::rowsWith(const TokenizedText& text, const Trace& base, const std::vector<Intervention>& ivs,
                                     const std::vector<int>& rows) const {
  checkInput(text);
  return resumedRows(*this, base, ivs, rows);
}

UnembeddingView Gpt2Model::tokenEmbeddings() const {
  return UnembeddingView(wte_.data, wte_.rows, wte_.cols, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(1, wte_.cols));
}

bool Gpt2Model::ovCircuitWeights(int layer, Mat& wv, Mat& wo) const {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return false;
  const Eigen::Index d = config_.dModel;
  wv = layers_[static_cast<std::size_t>(layer)].attnW.unpacked().middleCols(2 * d, d);  // Q | K | V
  wo = layers_[static_cast<std::size_t>(layer)].projW.unpacked();
  return true;
}

}  // namespace attnlab
