#include "core/checkpoint/decoder_model.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "core/base/errors.h"
#include "core/compute/heap_policy.h"
#include "core/model/attention_head.h"
#include "core/model/blocks.h"
#include "core/model/forward_hooks.h"
#include "core/model/prefix_reuse.h"
#include "core/model/resumed_runs.h"

namespace attnlab {
namespace {

/// `v` rounded to the nearest value of `dtype` (ties to even), as torch.tensor(v, dtype=…) does: Gemma's
/// embedding multiplier √d is a tensor of the weights' dtype.
float roundedTo(float v, DType dtype) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, 4);
  if (dtype == DType::BF16) {
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    bits &= 0xFFFF0000u;
    std::memcpy(&v, &bits, 4);
  } else if (dtype == DType::F16) {
    // An 11-bit significand: round the float's 24-bit significand at bit 13 (√d is a normal half).
    bits += 0xFFFu + ((bits >> 13) & 1u);
    bits &= 0xFFFFE000u;
    std::memcpy(&v, &bits, 4);
  }
  return v;
}

void applyGate(Mat& gate, GateActivation a) {
  switch (a) {
    case GateActivation::Silu:
      siluInPlace(gate);
      break;
    case GateActivation::GeluTanh:
      geluTanhInPlace(gate);
      break;
    case GateActivation::GeluErf:
      geluErfInPlace(gate);
      break;
  }
}

/// RMSNorm over each head's d_head columns of x [n, heads·d_head], in place.
void normEachHead(Mat& x, int heads, int dh, const WeightView& w, double eps, bool addOne) {
  for (int h = 0; h < heads; ++h) {
    const Mat part = x.middleCols(static_cast<Eigen::Index>(h) * dh, dh);
    x.middleCols(static_cast<Eigen::Index>(h) * dh, dh) = rmsNorm(part, w.vector(), eps, addOne);
  }
}

}  // namespace

DecoderModel::DecoderModel(HfConfig config, std::unique_ptr<TextTokenizer> tokenizer,
                           std::shared_ptr<SafetensorsSet> files, std::string name, const RunControl& control)
    : HfModel(std::move(config), std::move(tokenizer), files, std::move(name)) {
  keepLargeBlocksInHeap();
  const HfConfig& c = config_;
  const DecoderSpec& d = c.decoder;
  const std::string family = toString(d.family);
  WeightSource w(files, {"model.", "language_model.model.", "model.language_model."}, "embed_tokens.weight", family);
  embed_ = w.matrix("embed_tokens.weight", c.vocabSize, c.dModel);
  finalNorm_ = w.vector("norm.weight", c.dModel);
  if (d.scaleEmbeddings) {
    const DType dtype = files->find(w.prefix() + "embed_tokens.weight")->dtype;
    embedScale_ = roundedTo(std::sqrt(static_cast<float>(c.dModel)), dtype);
  }
  for (int l = 0; l < c.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / c.layers);
    loadLayer(w, l);
  }
  w.finish();
  if (d.tiedEmbeddings) {
    unembed_ = embed_;
  } else {
    const TensorInfo* head = files->find("lm_head.weight");
    if (!head) head = files->find("language_model.lm_head.weight");
    if (!head) throw InputError(files->path() + ": \"lm_head.weight\" is missing and tie_word_embeddings is false");
    WeightSource h(files, {"", "language_model."}, "lm_head.weight", family);
    unembed_ = h.matrix("lm_head.weight", c.vocabSize, c.dModel);
  }
  Unembedding& u = unembedding_;
  u.norm = Unembedding::Norm::Rms;
  u.gamma = d.normAddsOne ? Vec(finalNorm_.vector().array() + 1.0f) : Vec(finalNorm_.vector());
  u.eps = d.rmsEps;
  u.data = unembed_.data;
  u.vocab = c.vocabSize;
  u.d = c.dModel;
  u.rowStride = c.dModel;  // [vocab, d] row-major
  u.colStride = 1;
  u.softcap = d.finalSoftcap;
}

void DecoderModel::loadLayer(WeightSource& w, int l) {
  const HfConfig& c = config_;
  const DecoderSpec& d = c.decoder;
  const Eigen::Index dm = c.dModel, dh = c.dHead(), qw = c.heads * dh, kvw = d.kvHeads * dh, inner = c.dInner;
  const std::string p = "layers." + std::to_string(l) + ".";
  DecoderLayerWeights lw;
  lw.inNorm = w.vector(p + "input_layernorm.weight", dm);
  lw.postAttnNorm = w.vector(p + "post_attention_layernorm.weight", dm);
  if (d.sandwichNorms) {
    lw.preFfnNorm = w.vector(p + "pre_feedforward_layernorm.weight", dm);
    lw.postFfnNorm = w.vector(p + "post_feedforward_layernorm.weight", dm);
  }
  if (d.qkNorm) {
    lw.qNorm = w.vector(p + "self_attn.q_norm.weight", dh);
    lw.kNorm = w.vector(p + "self_attn.k_norm.weight", dh);
  }
  const std::string a = p + "self_attn.";
  lw.qkvW = w.packedStack({{a + "q_proj.weight", qw}, {a + "k_proj.weight", kvw}, {a + "v_proj.weight", kvw}}, dm);
  if (d.qkvBias) lw.qkvB = w.vectorStack({{a + "q_proj.bias", qw}, {a + "k_proj.bias", kvw}, {a + "v_proj.bias", kvw}});
  lw.oW = w.packed(a + "o_proj.weight", dm, qw, WeightSource::Stored::OutIn);
  if (d.oBias) lw.oB = w.vectorStack({{a + "o_proj.bias", dm}});
  const std::string m = p + "mlp.";
  lw.gateUpW = w.packedStack({{m + "gate_proj.weight", inner}, {m + "up_proj.weight", inner}}, dm);
  lw.downW = w.packed(m + "down_proj.weight", dm, inner, WeightSource::Stored::OutIn);
  if (d.mlpBias) {
    lw.gateUpB = w.vectorStack({{m + "gate_proj.bias", inner}, {m + "up_proj.bias", inner}});
    lw.downB = w.vectorStack({{m + "down_proj.bias", dm}});
  }
  layers_.push_back(std::move(lw));
}

ModelInfo DecoderModel::info() const {
  ModelInfo i = HfModel::info();
  const DecoderSpec& d = config_.decoder;
  i.name = name_ + " (" + toString(d.family) + ", " + std::to_string(config_.layers) + " layers, " +
           std::to_string(config_.heads) + " heads";
  if (d.kvHeads != config_.heads) i.name += " / " + std::to_string(d.kvHeads) + " kv";
  i.name += ", d " + std::to_string(config_.dModel) + ")";
  i.kind = toString(d.family);
  i.kvHeads = d.kvHeads;
  if (d.rope.scaling == RopeScaling::Dynamic)  // dynamic NTK scaling exists to run past the trained length
    i.maxTokens = static_cast<int>(config_.maxPositions * d.rope.factor);
  return i;
}

Mat DecoderModel::norm(const Mat& x, const WeightView& w) const {
  return rmsNorm(x, w.vector(), config_.decoder.rmsEps, config_.decoder.normAddsOne);
}

Trace DecoderModel::forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const {
  const int n = static_cast<int>(text.ids.size());
  checkInput(text);
  checkIntervention(iv, config_.layers, config_.heads, n);
  const bool keepMaps = planMapKeeping(iv.maps, n, config_.layers, config_.heads);
  Trace trace = startTrace(text, /*causal=*/true);
  // A long input's trace keeps no attention or MLP outputs: this model recomputes them (layer_outputs.h). Not with a
  // residual patch: it is recorded in the stream a layer reads (Trace::layerInput), which output − input would mix in.
  trace.outputsFrom = keepMaps || iv.residualLayer >= 0 ? nullptr : weak_from_this().lock();
  const bool keepOutputs = trace.outputsFrom == nullptr;
  checkActivationMemory(
      n, config_.layers,
      activationFloatsPerToken(config_.dModel, static_cast<long long>(config_.heads) * config_.dHead(),
                               static_cast<long long>(config_.decoder.kvHeads) * config_.dHead(), keepOutputs));
  trace.kvHeads = config_.decoder.kvHeads;
  Mat h(n, config_.dModel);  // [n, d]
  if (wantsHook(iv.hooks, HookSite::Embed, -1)) {
    for (int i = 0; i < n; ++i) h.row(i) = embed_.matrix().row(text.ids[i]);
    runHook(iv.hooks, HookSite::Embed, -1, h);  // W_E rows, before the embedding scale
    h *= embedScale_;
  } else {
    for (int i = 0; i < n; ++i) h.row(i) = embed_.matrix().row(text.ids[i]) * embedScale_;
  }
  trace.embeddings = h;
  const RopeTables global = ropeTables(config_.decoder.rope, config_.dHead(), n);
  RopeTables local;
  bool anyLocal = false;
  for (bool b : config_.decoder.usesLocalRope) anyLocal = anyLocal || b;
  if (anyLocal) local = ropeTables(config_.decoder.localRope, config_.dHead(), n);
  // Rows taken from the last run; not with dynamic RoPE, whose angles depend on the text's length.
  const bool dynamic = config_.decoder.rope.scaling == RopeScaling::Dynamic ||
                       (anyLocal && config_.decoder.localRope.scaling == RopeScaling::Dynamic);
  const int p = dynamic ? 0 : reusablePrefixRows(iv, text.ids, config_.layers, keepMaps);
  for (int l = copyReusedLayers(iv, text.ids, trace, h); l < config_.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / config_.layers);
    interveneOnTracedResidual(iv, l, trace, h);
    hookTracedResidual(iv, l, trace, h);
    trace.layers.push_back(
        runLayer(l, h, config_.decoder.usesLocalRope[l] ? local : global, iv, keepMaps, keepOutputs, p));
    h = trace.layers.back().residualOut;
  }
  interveneOnResidual(iv, config_.layers, trace.layers.back().residualOut);
  control.checkpoint(1.0);
  return trace;
}

LayerTrace DecoderModel::runLayer(int layer, const Mat& x, const RopeTables& rope, const Intervention& iv,
                                  bool keepMaps, bool keepOutputs, int p) const {
  const DecoderLayerWeights& w = layers_[layer];
  const DecoderSpec& d = config_.decoder;
  const int heads = config_.heads, kv = d.kvHeads, dh = config_.dHead();
  const Eigen::Index m = x.rows() - p;  // rows computed here; [0, p) come from iv.prefix (prefix_reuse.h)
  LayerTrace t;
  const Mat xNew = p > 0 ? Mat(x.bottomRows(m)) : Mat();
  const Mat& rows = p > 0 ? xNew : x;
  const Mat qkv = w.qkvW.affine(norm(rows, w.inNorm), w.qkvB);  // [m, (H + 2·H_kv)·d_head]
  Mat q = qkv.leftCols(static_cast<Eigen::Index>(heads) * dh);
  Mat k = qkv.middleCols(static_cast<Eigen::Index>(heads) * dh, static_cast<Eigen::Index>(kv) * dh);
  Mat v = qkv.rightCols(static_cast<Eigen::Index>(kv) * dh);
  if (d.qkNorm) {
    normEachHead(q, heads, dh, w.qNorm, d.rmsEps, d.normAddsOne);
    normEachHead(k, kv, dh, w.kNorm, d.rmsEps, d.normAddsOne);
  }
  const RopeTables newRows = p > 0 ? RopeTables{rope.cos.bottomRows(m), rope.sin.bottomRows(m)} : RopeTables{};
  applyRope(q, heads, dh, p > 0 ? newRows : rope);  // positions p … n − 1
  applyRope(k, kv, dh, p > 0 ? newRows : rope);
  if (iv.hooks) {  // q and k after the rotation (TransformerLens's hook_rot_q, hook_rot_k)
    runHook(iv.hooks, HookSite::Q, layer, q);
    runHook(iv.hooks, HookSite::K, layer, k);
    runHook(iv.hooks, HookSite::V, layer, v);
  }
  if (p > 0) {
    const LayerTrace& prev = iv.prefix->layers[static_cast<std::size_t>(layer)];
    q = stackHeadRows(prev, HeadPart::Q, p, q, heads, 1, dh);
    k = stackHeadRows(prev, HeadPart::K, p, k, kv, heads / kv, dh);
    v = stackHeadRows(prev, HeadPart::V, p, v, kv, heads / kv, dh);
  }
  HeadOptions o;
  o.scale = static_cast<float>(d.attnScale);
  o.window = d.window[layer];
  o.softcap = static_cast<float>(d.attnSoftcap);
  // An edit: the heads' outputs of rows before p are the last run's (their tiles skip the A·V product).
  const LayerTrace* known = p > 0 ? &iv.prefix->layers[static_cast<std::size_t>(layer)] : nullptr;
  t.heads = attendGroupedHeads(q, k, v, heads, kv, dh, o, t.concat, keepMaps && p == 0, known, p);
  runAttentionHooks(iv.hooks, layer, t.heads, t.concat);
  interveneOnConcat(iv, layer, heads, dh, t.concat);
  runHook(iv.hooks, HookSite::Z, layer, t.concat);
  Mat attentionOut = attentionOutput(layer, t.concat.bottomRows(m));  // [m, d]
  runHook(iv.hooks, HookSite::AttnOut, layer, attentionOut);
  Mat h = rows + attentionOut;
  runHook(iv.hooks, HookSite::ResidMid, layer, h);
  Mat mlpOut = mlp(norm(h, d.sandwichNorms ? w.preFfnNorm : w.postAttnNorm), w);
  if (d.sandwichNorms) mlpOut = norm(mlpOut, w.postFfnNorm);
  runHook(iv.hooks, HookSite::MlpOut, layer, mlpOut);
  if (p == 0) {
    t.residualOut = h + mlpOut;
    runHook(iv.hooks, HookSite::ResidPost, layer, t.residualOut);
    if (keepOutputs) {
      t.attentionOut = std::move(attentionOut);
      t.mlpOut = std::move(mlpOut);
    }
    return t;
  }
  const LayerTrace& prev = iv.prefix->layers[static_cast<std::size_t>(layer)];
  t.residualOut = stackRows(prev.residualOut, p, h + mlpOut);
  if (keepOutputs) {
    t.attentionOut = stackRows(prev.attentionOut, p, attentionOut);
    t.mlpOut = stackRows(prev.mlpOut, p, mlpOut);
  }
  return t;
}

Mat DecoderModel::attentionOutput(int layer, const Mat& concat) const {
  const DecoderLayerWeights& w = layers_[static_cast<std::size_t>(layer)];
  Mat out = w.oW.affine(concat, w.oB);  // [m, d]
  if (config_.decoder.sandwichNorms) out = norm(out, w.postAttnNorm);
  return out;
}

Mat DecoderModel::mlp(const Mat& x, const DecoderLayerWeights& w) const {
  const Eigen::Index inner = config_.dInner;
  return inRowBlocks(x, kMlpRowBlock, [&](const Mat& rows) {
    const Mat gu = w.gateUpW.affine(rows, w.gateUpB);  // [rows, 2·inner]
    Mat gate = gu.leftCols(inner);
    applyGate(gate, config_.decoder.activation);
    const Mat hidden = (gate.array() * gu.rightCols(inner).array()).matrix();  // [rows, inner]
    return w.downW.affine(hidden, w.downB);
  });
}

/// DecoderModel::runLayer split at attention for resumed runs; RoPE tables of the whole text made once.
class DecoderResumedLayers : public ResumableLayers {
 public:
  DecoderResumedLayers(const DecoderModel& m, int tokens) : m_(m), d_(m.config_.decoder), dh_(m.config_.dHead()) {
    global_ = ropeTables(d_.rope, dh_, tokens);
    for (bool b : d_.usesLocalRope)
      if (b && local_.cos.size() == 0) local_ = ropeTables(d_.localRope, dh_, tokens);
  }
  Mat queryKeyValue(int layer, const Mat& x) const override {
    const DecoderLayerWeights& w = m_.layers_[layer];
    Mat qkv = w.qkvW.affine(m_.norm(x, w.inNorm), w.qkvB);  // [m, (H + 2·H_kv)·d_head]
    if (d_.qkNorm) {
      const Eigen::Index qw = static_cast<Eigen::Index>(m_.config_.heads) * dh_, kvw = d_.kvHeads * dh_;
      Mat q = qkv.leftCols(qw), k = qkv.middleCols(qw, kvw);
      normEachHead(q, m_.config_.heads, dh_, w.qNorm, d_.rmsEps, d_.normAddsOne);
      normEachHead(k, d_.kvHeads, dh_, w.kNorm, d_.rmsEps, d_.normAddsOne);
      qkv.leftCols(qw) = q;
      qkv.middleCols(qw, kvw) = k;
    }
    return qkv;
  }
  void placeRows(int layer, int first, int /*tokens*/, Mat& q, Mat& k) const override {
    const RopeTables& t = d_.usesLocalRope[layer] ? local_ : global_;
    const RopeTables rows{t.cos.middleRows(first, q.rows()), t.sin.middleRows(first, q.rows())};
    applyRope(q, m_.config_.heads, dh_, rows);
    applyRope(k, d_.kvHeads, dh_, rows);
  }
  HeadOptions headOptions(int layer) const override {
    HeadOptions o;
    o.scale = static_cast<float>(d_.attnScale);
    o.window = d_.window[layer];
    o.softcap = static_cast<float>(d_.attnSoftcap);
    return o;
  }
  Mat finishLayer(int layer, const Mat& x, const Mat& concat) const override {
    const DecoderLayerWeights& w = m_.layers_[layer];
    const Mat h = x + m_.attentionOutput(layer, concat);
    Mat mlp = m_.mlp(m_.norm(h, d_.sandwichNorms ? w.preFfnNorm : w.postAttnNorm), w);
    if (d_.sandwichNorms) mlp = m_.norm(mlp, w.postFfnNorm);
    return h + mlp;
  }

 private:
  const DecoderModel& m_;
  const DecoderSpec& d_;
  int dh_;
  RopeTables global_, local_;
};

std::vector<Vec> DecoderModel::lastRowsWith(const TokenizedText& text, const Trace& base,
                                            const std::vector<Intervention>& ivs) const {
  checkInput(text);
  return resumedLastRows(DecoderResumedLayers(*this, static_cast<int>(text.ids.size())), base, ivs);
}

std::vector<Mat> DecoderModel::rowsWith(const TokenizedText& text, const Trace& base,
                                        const std::vector<Intervention>& ivs, const std::vector<int>& rows) const {
  checkInput(text);
  return resumedRows(DecoderResumedLayers(*this, static_cast<int>(text.ids.size())), base, ivs, rows);
}

Mat DecoderModel::finalNorm(const Mat& residual) const { return unembedding_.normalise(residual); }

Mat DecoderModel::logits(const Mat& residual) const { return unembedding_.logits(residual); }

UnembeddingView DecoderModel::tokenEmbeddings() const {
  return UnembeddingView(embed_.data, embed_.rows, embed_.cols,
                         Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(1, embed_.cols));
}

bool DecoderModel::ovCircuitWeights(int layer, Mat& wv, Mat& wo) const {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return false;
  const DecoderLayerWeights& w = layers_[static_cast<std::size_t>(layer)];
  const Eigen::Index kv = static_cast<Eigen::Index>(config_.decoder.kvHeads) * config_.dHead();
  const Eigen::Index q = static_cast<Eigen::Index>(config_.heads) * config_.dHead();
  wv = w.qkvW.unpacked().middleCols(q + kv, kv);  // q | k | v
  wo = w.oW.unpacked();
  return true;
}

}  // namespace attnlab
