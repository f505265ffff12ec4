#include "core/checkpoint/encdec_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/attention_head.h"
#include "core/model/blocks.h"
#include "core/model/prefix_reuse.h"

namespace attnlab {
namespace {

void activate(Mat& x, EncDecActivation a) {
  switch (a) {
    case EncDecActivation::Swish:
      siluInPlace(x);
      break;
    case EncDecActivation::GeluErf:
      geluErfInPlace(x);
      break;
    case EncDecActivation::GeluTanh:
      geluTanhInPlace(x);
      break;
    case EncDecActivation::Relu:
      reluInPlace(x);
      break;
  }
}

/// Marian's sinusoid of position `pos` [d]: angle pos / 10000^(2⌊j/2⌋/d); sines of the even j in the first half,
/// cosines of the odd j in the second (MarianSinusoidalPositionalEmbedding, not interleaved). Computed in double.
Vec sinusoid(int pos, int d) {
  Vec row(d);
  const int half = d / 2;
  for (int i = 0; i < half; ++i) {
    const double angle = pos / std::pow(10000.0, 2.0 * i / d);
    row(i) = static_cast<float>(std::sin(angle));
    row(half + i) = static_cast<float>(std::cos(angle));
  }
  return row;
}

/// Every head of q [n, H·dh] against its keys and values [m, dh] (one shared matrix per head), scores
/// (q_h·k_hᵀ)·scale + bias[h] (T5; none when `bias` is empty), maps kept (the texts of a translation are short).
/// `concat` [n, H·dh] receives the outputs.
std::vector<HeadTrace> attendHeads(const Mat& q, const std::vector<SharedMat>& keys,
                                   const std::vector<SharedMat>& values, int dh, float scale, bool causal,
                                   const std::vector<Mat>& bias, Mat& concat) {
  const int heads = static_cast<int>(keys.size());
  HeadOptions o;
  o.scale = scale;
  o.causal = causal;
  concat.resize(q.rows(), static_cast<Eigen::Index>(heads) * dh);
  std::vector<HeadTrace> out;
  for (int h = 0; h < heads; ++h) {
    const Eigen::Index c = static_cast<Eigen::Index>(h) * dh;
    HeadTrace t;
    t.q = q.middleCols(c, dh);
    t.keys = keys[static_cast<std::size_t>(h)];
    t.values = values[static_cast<std::size_t>(h)];
    t.scores.noalias() = (t.q * t.k().transpose()) * scale;  // [n, m]
    if (!bias.empty()) t.scores += bias[static_cast<std::size_t>(h)];
    t.attention = t.scores;
    if (causal) applyCausalMask(t.attention);
    softmaxRowsInPlace(t.attention);
    concat.middleCols(c, dh).noalias() = t.attention * t.v();
    t.options = o;
    out.push_back(std::move(t));
  }
  return out;
}

/// Head h's columns of m [rows, H·dh], one shared matrix per head.
std::vector<SharedMat> splitHeads(const Eigen::Ref<const Mat>& m, int heads, int dh) {
  std::vector<SharedMat> out;
  for (int h = 0; h < heads; ++h) out.push_back(shareMat(m.middleCols(static_cast<Eigen::Index>(h) * dh, dh)));
  return out;
}

enum class Part { Q, K, V };

/// Q, K or V of every head [p + fresh.rows(), H·dh]: rows [0, p) from the earlier run's heads, then `fresh`.
Mat withEarlierHeadRows(const std::vector<HeadTrace>& earlier, Part part, int p, const Eigen::Ref<const Mat>& fresh,
                        int dh) {
  if (p == 0) return fresh;
  Mat out(p + fresh.rows(), fresh.cols());
  for (std::size_t h = 0; h < earlier.size(); ++h) {
    const Mat& rows = part == Part::Q ? earlier[h].q : part == Part::K ? earlier[h].k() : earlier[h].v();
    out.block(0, static_cast<Eigen::Index>(h) * dh, p, dh) = rows.topRows(p);
  }
  out.bottomRows(fresh.rows()) = fresh;
  return out;
}

/// attendHeads with k, v [m, H·dh] split into heads.
std::vector<HeadTrace> attendAll(const Mat& q, const Eigen::Ref<const Mat>& k, const Eigen::Ref<const Mat>& v,
                                 int heads, int dh, float scale, bool causal, const std::vector<Mat>& bias,
                                 Mat& concat) {
  return attendHeads(q, splitHeads(k, heads, dh), splitHeads(v, heads, dh), dh, scale, causal, bias, concat);
}

/// One query row [1, H·dh] against cached keys and values [m, H·dh] (plus T5's bias rows [1, m]) → the heads'
/// outputs [1, H·dh].
Mat attendRow(const Mat& q, const Mat& k, const Mat& v, int heads, int dh, float scale, const std::vector<Mat>& bias) {
  Mat out(1, static_cast<Eigen::Index>(heads) * dh);
  for (int h = 0; h < heads; ++h) {
    const Eigen::Index c = static_cast<Eigen::Index>(h) * dh;
    Mat s = (q.middleCols(c, dh) * k.middleCols(c, dh).transpose()) * scale;  // [1, m]
    if (!bias.empty()) s += bias[static_cast<std::size_t>(h)];
    softmaxRowsInPlace(s);
    out.middleCols(c, dh) = s * v.middleCols(c, dh);
  }
  return out;
}

/// 1/√d_head, or 1 for T5 (its initialisation folds the scale into W_q).
float scoreScale(const EncDecConfig& c, int dh) { return c.isT5() ? 1.0f : 1.0f / std::sqrt(static_cast<float>(dh)); }

}  // namespace

EncDecModel::EncDecModel(EncDecConfig config, std::shared_ptr<SafetensorsSet> files)
    : config_(std::move(config)), files_(std::move(files)) {
  const EncDecConfig& c = config_;
  const Eigen::Index d = c.dModel;
  const std::string family = toString(c.family);
  const std::string probe = c.sharedEmbeddings ? "shared.weight" : "encoder.embed_tokens.weight";
  WeightSource w(files_, c.isT5() ? std::vector<std::string>{""} : std::vector<std::string>{"model.", ""}, probe,
                 family);
  // Tied tables are stored once (save_pretrained drops the duplicates): a stack's own name first, then shared.
  auto table = [&](const std::string& own, Eigen::Index vocab) {
    return w.has(own) || !c.sharedEmbeddings ? w.matrix(own, vocab, d) : w.matrix("shared.weight", vocab, d);
  };
  encEmbed_ = table("encoder.embed_tokens.weight", c.vocabSize);
  decEmbed_ = table("decoder.embed_tokens.weight", c.decoderVocabSize);
  if (c.family == EncDecFamily::Bart) {
    encPos_ = w.matrix("encoder.embed_positions.weight", c.maxPositions + 2, d);
    decPos_ = w.matrix("decoder.embed_positions.weight", c.maxPositions + 2, d);
    encEmbNormW_ = w.vector("encoder.layernorm_embedding.weight", d);
    encEmbNormB_ = w.vector("encoder.layernorm_embedding.bias", d);
    decEmbNormW_ = w.vector("decoder.layernorm_embedding.weight", d);
    decEmbNormB_ = w.vector("decoder.layernorm_embedding.bias", d);
  }
  if (c.isT5()) {
    const std::string bias = ".block.0.layer.0.SelfAttention.relative_attention_bias.weight";
    encRelBias_ = w.matrix("encoder" + bias, c.relativeBuckets, c.encoderHeads);
    decRelBias_ = w.matrix("decoder" + bias, c.relativeBuckets, c.decoderHeads);
    encFinalNorm_ = w.vector("encoder.final_layer_norm.weight", d);
    decFinalNorm_ = w.vector("decoder.final_layer_norm.weight", d);
    for (int l = 0; l < c.encoderLayers; ++l) encoder_.push_back(loadT5Layer(w, "encoder", l));
    for (int l = 0; l < c.decoderLayers; ++l) decoder_.push_back(loadT5Layer(w, "decoder", l));
    w.finish();
    if (w.has("lm_head.weight"))
      lmHead_ = w.matrix("lm_head.weight", c.decoderVocabSize, d);
    else if (c.tiedLmHead)
      lmHead_ = decEmbed_;
    else
      throw InputError(files_->path() + ": \"lm_head.weight\" is missing and tie_word_embeddings is false");
    finalBias_ = Vec::Zero(c.decoderVocabSize);
    makeUnembedding();
    return;
  }
  for (int l = 0; l < c.encoderLayers; ++l) encoder_.push_back(loadLayer(w, "encoder", l));
  for (int l = 0; l < c.decoderLayers; ++l) decoder_.push_back(loadLayer(w, "decoder", l));
  w.finish();
  // lm_head and final_logits_bias live outside "model.". A checkpoint saved from the bare model (BartModel,
  // MarianModel: facebook/bart-base's architectures) has no final_logits_bias: transformers' *ForConditionalGeneration
  // then starts it at zeros, and so does this.
  WeightSource top(files_, {""}, w.prefix() + probe, family);
  if (top.has("final_logits_bias"))
    finalBias_ = Vec(top.matrix("final_logits_bias", 1, c.decoderVocabSize).matrix().transpose());
  else
    finalBias_ = Vec::Zero(c.decoderVocabSize);
  if (top.has("lm_head.weight"))
    lmHead_ = top.matrix("lm_head.weight", c.decoderVocabSize, d);
  else if (c.tiedLmHead)
    lmHead_ = decEmbed_;
  else
    throw InputError(files_->path() + ": \"lm_head.weight\" is missing and tie_word_embeddings is false");
  top.finish();
  makeUnembedding();
}

void EncDecModel::makeUnembedding() {
  const EncDecConfig& c = config_;
  Unembedding& u = unembedding_;
  u.data = lmHead_.data;  // row-major [vocab, d]: element (t, j) at t·d + j
  u.vocab = lmHead_.rows;
  u.d = lmHead_.cols;
  u.rowStride = lmHead_.cols;
  u.colStride = 1;
  u.eps = c.layerNormEps;
  if (c.preNormRms) {  // T5: logits = (RMSNorm(x)·s)·W_Uᵀ with the final norm's γ; s folded into γ
    u.norm = Unembedding::Norm::Rms;
    u.gamma = Vec(decFinalNorm_.vector()) * static_cast<float>(c.lmHeadScale);
  } else {  // post-LN: the stream is already normalised; logits = x·W_Uᵀ + final_logits_bias
    if (c.lmHeadScale != 1.0)
      throw std::logic_error("EncDecModel: a post-LN model's lm_head rescale has no place in its Unembedding");
    u.norm = Unembedding::Norm::None;
  }
  if (finalBias_.size() > 0 && finalBias_.cwiseAbs().maxCoeff() > 0.0f) u.bias = finalBias_;
  // logits() applies lm_head to the final stream (after T5's final norm): no norm, the bias, W_U's packed copy shared
  logitsHead_ = u;
  logitsHead_.norm = Unembedding::Norm::None;
  logitsHead_.gamma = Vec();
  logitsHead_.bias = finalBias_;
}

std::shared_ptr<EncDecModel> EncDecModel::open(const std::string& dir) {
  EncDecConfig c = readEncDecConfig(dir + "/config.json");
  return std::make_shared<EncDecModel>(std::move(c), openCheckpointWeights(dir));
}

EncDecAttentionWeights EncDecModel::loadAttention(WeightSource& w, const std::string& a, bool cross) {
  const Eigen::Index d = config_.dModel;
  EncDecAttentionWeights r;
  if (cross) {
    r.qkvW = w.packedStack({{a + "q_proj.weight", d}}, d);
    r.qkvB = w.vectorStack({{a + "q_proj.bias", d}});
    r.kvW = w.packedStack({{a + "k_proj.weight", d}, {a + "v_proj.weight", d}}, d);
    r.kvB = w.vectorStack({{a + "k_proj.bias", d}, {a + "v_proj.bias", d}});
  } else {
    r.qkvW = w.packedStack({{a + "q_proj.weight", d}, {a + "k_proj.weight", d}, {a + "v_proj.weight", d}}, d);
    r.qkvB = w.vectorStack({{a + "q_proj.bias", d}, {a + "k_proj.bias", d}, {a + "v_proj.bias", d}});
  }
  r.oW = w.packedStack({{a + "out_proj.weight", d}}, d);
  r.oB = w.vectorStack({{a + "out_proj.bias", d}});
  return r;
}

EncDecAttentionWeights EncDecModel::loadT5Attention(WeightSource& w, const std::string& a, bool cross, int heads,
                                                    int dh) {
  const Eigen::Index d = config_.dModel, aw = static_cast<Eigen::Index>(heads) * dh;
  EncDecAttentionWeights r;
  if (cross) {
    r.qkvW = w.packedStack({{a + "q.weight", aw}}, d);
    r.kvW = w.packedStack({{a + "k.weight", aw}, {a + "v.weight", aw}}, d);
  } else {
    r.qkvW = w.packedStack({{a + "q.weight", aw}, {a + "k.weight", aw}, {a + "v.weight", aw}}, d);
  }
  r.oW = w.packedStack({{a + "o.weight", d}}, aw);
  return r;
}

EncDecLayerWeights EncDecModel::loadT5Layer(WeightSource& w, const std::string& stack, int l) {
  const EncDecConfig& c = config_;
  const Eigen::Index d = c.dModel;
  const bool dec = stack == "decoder";
  const int heads = dec ? c.decoderHeads : c.encoderHeads, dh = dec ? c.decoderHeadDim : c.encoderHeadDim;
  const Eigen::Index ffn = dec ? c.decoderFfn : c.encoderFfn;
  const std::string p = stack + ".block." + std::to_string(l) + ".layer.";
  EncDecLayerWeights r;
  r.self = loadT5Attention(w, p + "0.SelfAttention.", false, heads, dh);
  r.self.normW = w.vector(p + "0.layer_norm.weight", d);
  if (dec) {
    r.cross = loadT5Attention(w, p + "1.EncDecAttention.", true, heads, dh);
    r.cross.normW = w.vector(p + "1.layer_norm.weight", d);
  }
  const std::string f = p + (dec ? "2." : "1.");
  if (c.gatedFfn)
    r.fc1W = w.packedStack({{f + "DenseReluDense.wi_0.weight", ffn}, {f + "DenseReluDense.wi_1.weight", ffn}}, d);
  else
    r.fc1W = w.packedStack({{f + "DenseReluDense.wi.weight", ffn}}, d);
  r.fc2W = w.packedStack({{f + "DenseReluDense.wo.weight", d}}, ffn);
  r.normW = w.vector(f + "layer_norm.weight", d);
  return r;
}

EncDecLayerWeights EncDecModel::loadLayer(WeightSource& w, const std::string& stack, int l) {
  const Eigen::Index d = config_.dModel;
  const Eigen::Index ffn = stack == "encoder" ? config_.encoderFfn : config_.decoderFfn;
  const std::string p = stack + ".layers." + std::to_string(l) + ".";
  EncDecLayerWeights r;
  r.self = loadAttention(w, p + "self_attn.", false);
  r.self.normW = w.vector(p + "self_attn_layer_norm.weight", d);
  r.self.normB = w.vector(p + "self_attn_layer_norm.bias", d);
  if (stack == "decoder") {
    r.cross = loadAttention(w, p + "encoder_attn.", true);
    r.cross.normW = w.vector(p + "encoder_attn_layer_norm.weight", d);
    r.cross.normB = w.vector(p + "encoder_attn_layer_norm.bias", d);
  }
  r.fc1W = w.packedStack({{p + "fc1.weight", ffn}}, d);
  r.fc1B = w.vectorStack({{p + "fc1.bias", ffn}});
  r.fc2W = w.packedStack({{p + "fc2.weight", d}}, ffn);
  r.fc2B = w.vectorStack({{p + "fc2.bias", d}});
  r.normW = w.vector(p + "final_layer_norm.weight", d);
  r.normB = w.vector(p + "final_layer_norm.bias", d);
  return r;
}

void EncDecModel::checkIds(const std::vector<int>& ids, int vocab, const char* what) const {
  if (ids.empty()) throw InputError(std::string("the ") + what + " text is empty");
  if (static_cast<long long>(ids.size()) > config_.maxPositions)
    throw InputError(std::string("the ") + what + " text has " + std::to_string(ids.size()) +
                     " tokens; this model reads at most " + std::to_string(config_.maxPositions) +
                     " (max_position_embeddings)");
  for (int id : ids)
    if (id < 0 || id >= vocab)
      throw InputError(std::string("the ") + what + " token id " + std::to_string(id) + " is outside the vocabulary (" +
                       std::to_string(vocab) + " tokens)");
}

Mat EncDecModel::layerNorm(const Mat& x, const WeightView& w, const WeightView& b) const {
  if (config_.preNormRms) return rmsNorm(x, Vec(w.vector()), config_.layerNormEps, false);
  return attnlab::layerNorm(x, Vec(w.vector()), Vec(b.vector()), config_.layerNormEps);
}

std::vector<Mat> EncDecModel::positionBias(bool decoder, int first, int queries, int keys) const {
  std::vector<Mat> out;
  if (!config_.isT5()) return out;
  const WeightView& table = decoder ? decRelBias_ : encRelBias_;  // [buckets, heads]
  const int heads = static_cast<int>(table.cols);
  out.assign(static_cast<std::size_t>(heads), Mat(queries, keys));
  for (int i = 0; i < queries; ++i)
    for (int j = 0; j < keys; ++j) {
      const int b = t5RelativeBucket(j - (first + i), !decoder, config_.relativeBuckets, config_.relativeMaxDistance);
      for (int h = 0; h < heads; ++h) out[static_cast<std::size_t>(h)](i, j) = table.matrix()(b, h);
    }
  return out;
}

Mat EncDecModel::stackOutput(bool decoder, const Mat& x) const {
  if (!config_.isT5()) return x;
  return layerNorm(x, decoder ? decFinalNorm_ : encFinalNorm_, {});
}

Mat EncDecModel::embed(const WeightView& table, const std::string& stack, const std::vector<int>& ids, int first,
                       int vocab) const {
  (void)vocab;
  const int n = static_cast<int>(ids.size()), d = config_.dModel;
  const float scale = config_.scaleEmbedding ? std::sqrt(static_cast<float>(d)) : 1.0f;
  const bool enc = stack == "encoder";
  Mat x(n, d);
  for (int i = 0; i < n; ++i) {
    x.row(i) = table.matrix().row(ids[static_cast<std::size_t>(i)]) * scale;
    if (config_.isT5()) continue;  // relative positions only, in the attention scores
    if (config_.sinusoidalPositions)
      x.row(i) += sinusoid(first + i, d).transpose();
    else
      x.row(i) += (enc ? encPos_ : decPos_).matrix().row(first + i + 2);  // BART's offset 2
  }
  if (config_.embeddingNorm)
    x = enc ? layerNorm(x, encEmbNormW_, encEmbNormB_) : layerNorm(x, decEmbNormW_, decEmbNormB_);
  return x;
}

Mat EncDecModel::feedForward(const Mat& x, const EncDecLayerWeights& w) const {
  return inRowBlocks(x, kMlpRowBlock, [&](const Mat& rows) {
    Mat hidden = w.fc1W.affine(rows, w.fc1B);  // [rows, ffn], or [rows, 2·ffn] gated (wi_0 | wi_1)
    if (config_.gatedFfn) {
      const Eigen::Index f = hidden.cols() / 2;
      Mat gate = hidden.leftCols(f);
      activate(gate, config_.activation);
      // Into a new matrix: assigned to `hidden` itself, the product's right half would be read after Eigen resized
      // (freed) it — a use after free that gave wrong numbers only where the freed block was reused.
      Mat gated = (gate.array() * hidden.rightCols(f).array()).matrix();
      hidden = std::move(gated);
    } else {
      activate(hidden, config_.activation);
    }
    return w.fc2W.affine(hidden, w.fc2B);
  });
}

/// A sublayer f around the stream x: post-LN LN(x + f(x)) (Marian, BART) or pre-LN x + f(RMSNorm(x)) (T5). `added`
/// receives f's output (what the sublayer adds to the residual).
template <typename F>
Mat residualBlock(bool preNorm, const Mat& x, const WeightView& w, const WeightView& b, F f, Mat& added,
                  const std::function<Mat(const Mat&, const WeightView&, const WeightView&)>& norm) {
  if (preNorm) {
    added = f(norm(x, w, b));
    return x + added;
  }
  added = f(x);
  return norm(x + added, w, b);
}

LayerTrace EncDecModel::encoderLayer(int layer, const Mat& x, const std::vector<Mat>& bias,
                                     const Intervention* iv) const {
  const EncDecLayerWeights& w = encoder_[static_cast<std::size_t>(layer)];
  const int heads = config_.encoderHeads, dh = config_.encoderHeadWidth();
  const Eigen::Index a = config_.encoderAttnWidth();
  const bool pre = config_.preNormRms;
  auto norm = [this](const Mat& v, const WeightView& g, const WeightView& b) { return layerNorm(v, g, b); };
  LayerTrace t;
  const Mat h = residualBlock(
      pre, x, w.self.normW, w.self.normB,
      [&](const Mat& in) {
        const Mat qkv = w.self.qkvW.affine(in, w.self.qkvB);  // [n, 3a]
        t.heads = attendAll(qkv.leftCols(a), qkv.middleCols(a, a), qkv.rightCols(a), heads, dh, scoreScale(config_, dh),
                            false, bias, t.concat);
        if (iv) interveneOnConcat(*iv, layer, heads, dh, t.concat);  // switched-off heads, before W_o
        return w.self.oW.affine(t.concat, w.self.oB);
      },
      t.attentionOut, norm);
  t.residualOut = residualBlock(
      pre, h, w.normW, w.normB, [&](const Mat& in) { return feedForward(in, w); }, t.mlpOut, norm);
  return t;
}

LayerTrace EncDecModel::decoderLayer(int layer, const Mat& yAll, const Mat& encOut, const std::vector<Mat>& bias,
                                     CrossLayerTrace& cross, int p, const LayerTrace* prevSelf,
                                     const CrossLayerTrace* prevCross, const CrossLayerTrace* kvFrom,
                                     const Intervention* self, const Intervention* crossIv) const {
  if ((self || crossIv) && p > 0) throw std::logic_error("EncDecModel: ablations need every decoder row computed");
  const EncDecLayerWeights& w = decoder_[static_cast<std::size_t>(layer)];
  const int heads = config_.decoderHeads, dh = config_.decoderHeadWidth();
  const Eigen::Index a = config_.decoderAttnWidth();
  const bool pre = config_.preNormRms;
  const float scale = scoreScale(config_, dh);
  auto norm = [this](const Mat& v, const WeightView& g, const WeightView& b) { return layerNorm(v, g, b); };
  // Rows [p, n) are computed (every row when p = 0); the products see only them, attention every row. The earlier
  // rows' q, k, v are the earlier run's (stackHeadRows), so the maps are whole.
  const Mat y = yAll.bottomRows(yAll.rows() - p);
  const auto withEarlier = [&](const Mat* top, const Mat& fresh) { return p > 0 ? stackRows(*top, p, fresh) : fresh; };
  const auto headRows = [&](const LayerTrace* from, Part part, const Eigen::Ref<const Mat>& fresh) {
    return p > 0 ? withEarlierHeadRows(from->heads, part, p, fresh, dh) : Mat(fresh);
  };
  LayerTrace t;
  Mat added;
  const Mat h = residualBlock(
      pre, y, w.self.normW, w.self.normB,
      [&](const Mat& in) {
        const Mat qkv = w.self.qkvW.affine(in, w.self.qkvB);  // [n − p, 3a]
        const Mat q = headRows(prevSelf, Part::Q, qkv.leftCols(a));
        const Mat k = headRows(prevSelf, Part::K, qkv.middleCols(a, a));
        const Mat v = headRows(prevSelf, Part::V, qkv.rightCols(a));
        t.heads = attendAll(q, k, v, heads, dh, scale, true, bias, t.concat);
        if (self) interveneOnConcat(*self, layer, heads, dh, t.concat);  // p = 0 here
        return w.self.oW.affine(t.concat.bottomRows(t.concat.rows() - p), w.self.oB);
      },
      added, norm);
  t.attentionOut = withEarlier(prevSelf ? &prevSelf->attentionOut : nullptr, added);
  const Mat h2 = residualBlock(
      pre, h, w.cross.normW, w.cross.normB,
      [&](const Mat& in) {
        const Mat q = w.cross.qkvW.affine(in, w.cross.qkvB);  // [n − p, a]
        const Mat qAll = p > 0 ? withEarlierHeadRows(prevCross->heads, Part::Q, p, q, dh) : q;
        if (kvFrom) {  // the same source: the earlier run's K and V, shared
          std::vector<SharedMat> keys, values;
          for (const HeadTrace& ht : kvFrom->heads) {
            keys.push_back(ht.keys);
            values.push_back(ht.values);
          }
          cross.heads = attendHeads(qAll, keys, values, dh, scale, false, {}, cross.concat);
        } else {
          const Mat kv = w.cross.kvW.affine(encOut, w.cross.kvB);  // [n_src, 2a]
          cross.heads = attendAll(qAll, kv.leftCols(a), kv.rightCols(a), heads, dh, scale, false, {}, cross.concat);
        }
        if (crossIv) interveneOnConcat(*crossIv, layer, heads, dh, cross.concat);  // mean: over the target rows
        return w.cross.oW.affine(cross.concat.bottomRows(cross.concat.rows() - p), w.cross.oB);
      },
      added, norm);
  cross.attentionOut = withEarlier(prevCross ? &prevCross->attentionOut : nullptr, added);
  cross.residualOut = withEarlier(prevCross ? &prevCross->residualOut : nullptr, h2);
  const Mat out = residualBlock(
      pre, h2, w.normW, w.normB, [&](const Mat& in) { return feedForward(in, w); }, added, norm);
  t.mlpOut = withEarlier(prevSelf ? &prevSelf->mlpOut : nullptr, added);
  t.residualOut = withEarlier(prevSelf ? &prevSelf->residualOut : nullptr, out);
  return t;
}

Mat EncDecModel::encode(const std::vector<int>& source) const {
  checkIds(source, config_.vocabSize, "source");
  // The layers keep their maps as forward() does: a clear message instead of an allocation failure for a long source.
  checkTraceMemory(static_cast<long long>(source.size()), config_.encoderLayers, config_.encoderHeads);
  Mat x = embed(encEmbed_, "encoder", source, 0, config_.vocabSize);
  const int n = static_cast<int>(source.size());
  const std::vector<Mat> bias = positionBias(false, 0, n, n);
  for (int l = 0; l < config_.encoderLayers; ++l) x = encoderLayer(l, x, bias).residualOut;
  return stackOutput(false, x);
}

Mat EncDecModel::logits(const Mat& decoderOut) const {
  // Eigen's product packed lm_head again on every call (a third of the logits' time on opus-mt's shape).
  return logitsHead_.logits(decoderOut * static_cast<float>(config_.lmHeadScale));  // [n, vocab]
}

EncDecTrace EncDecModel::forward(const std::vector<int>& source, const std::vector<int>& target, bool withLogits,
                                 const EncDecAblation& ablation) const {
  return forward(source, target, EncDecReuse{}, withLogits, ablation);
}

EncDecTrace EncDecModel::forward(const std::vector<int>& source, const std::vector<int>& target,
                                 const EncDecReuse& reuse, bool withLogits, const EncDecAblation& ablation) const {
  checkIds(source, config_.vocabSize, "source");
  checkIds(target, config_.decoderVocabSize, "target");
  for (const Intervention* iv : {&ablation.encoder, &ablation.decoder, &ablation.cross})
    if (!iv->ablate.empty() && iv->mode == AblationMode::Resample)
      throw InputError(
          "resample ablation is not available for an encoder–decoder (it would need a run of another "
          "source and target): use zero or mean");
  const auto check = [](const Intervention& iv, int layers, int heads, std::size_t tokens, const char* which) {
    try {
      checkIntervention(iv, layers, heads, static_cast<int>(tokens));
    } catch (const InputError& e) {
      throw InputError(std::string(which) + ": " + e.what());
    }
  };
  check(ablation.encoder, config_.encoderLayers, config_.encoderHeads, source.size(), "encoder self-attention");
  check(ablation.decoder, config_.decoderLayers, config_.decoderHeads, target.size(), "decoder self-attention");
  check(ablation.cross, config_.decoderLayers, config_.decoderHeads, target.size(), "cross-attention");
  const bool ablated = !ablation.empty();
  const int ns = static_cast<int>(source.size()), nt = static_cast<int>(target.size());
  const bool sameSource = reuse.encoder && reuse.encoderOut && reuse.cross;
  // Mean ablation averages a head over every target row: with any ablation the decoder's rows are all recomputed.
  const int p = sameSource && !ablated ? reuse.decoderRows : 0;
  if (p > 0) {
    const Trace* d = reuse.decoder;
    if (!d || p >= nt || static_cast<int>(d->tokenIds.size()) < p || d->layerCount() != config_.decoderLayers ||
        !reuse.decoderOut || reuse.decoderOut->rows() < p ||
        !std::equal(target.begin(), target.begin() + p, d->tokenIds.begin()))
      throw std::logic_error("EncDecModel::forward: the earlier run cannot give the decoder's first rows");
  }
  EncDecTrace t;
  Trace& e = t.encoder;
  // Every map is kept: a clear message instead of an allocation failure for texts far past translation length
  // (T5's relative positions set no length limit). Cross maps [n_tgt, n_src] count as the geometric mean's square.
  checkTraceMemory(ns, config_.encoderLayers, config_.encoderHeads);
  checkTraceMemory(nt, config_.decoderLayers, config_.decoderHeads);
  checkTraceMemory(static_cast<long long>(std::ceil(std::sqrt(double(ns) * nt))), config_.decoderLayers,
                   config_.decoderHeads);
  if (sameSource) {
    e = *reuse.encoder;  // its heads' K and V are shared, the rest is ~n_src² per head: small next to a pass
    t.encoderOut = *reuse.encoderOut;
  } else {
    e.causal = false;
    e.tokenIds = source;
    for (int id : source) e.tokens.push_back(std::to_string(id));
    e.embeddings = embed(encEmbed_, "encoder", source, 0, config_.vocabSize);
    const std::vector<Mat> encBias = positionBias(false, 0, ns, ns);
    for (int l = 0; l < config_.encoderLayers; ++l)
      e.layers.push_back(encoderLayer(l, e.layerInput(l), encBias, ablated ? &ablation.encoder : nullptr));
    t.encoderOut = stackOutput(false, e.layers.back().residualOut);
  }
  Trace& dt = t.decoder;
  dt.causal = true;
  dt.tokenIds = target;
  for (int id : target) dt.tokens.push_back(std::to_string(id));
  const std::vector<int> fresh(target.begin() + p, target.end());
  dt.embeddings = embed(decEmbed_, "decoder", fresh, p, config_.decoderVocabSize);
  if (p > 0) dt.embeddings = stackRows(reuse.decoder->embeddings, p, dt.embeddings);
  t.cross.resize(static_cast<std::size_t>(config_.decoderLayers));
  const std::vector<Mat> decBias = positionBias(true, 0, nt, nt);
  for (int l = 0; l < config_.decoderLayers; ++l) {
    const std::size_t li = static_cast<std::size_t>(l);
    const CrossLayerTrace* earlierCross = sameSource ? &(*reuse.cross)[li] : nullptr;
    dt.layers.push_back(decoderLayer(l, dt.layerInput(l), t.encoderOut, decBias, t.cross[li], p,
                                     p > 0 ? &reuse.decoder->layers[li] : nullptr, p > 0 ? earlierCross : nullptr,
                                     earlierCross, ablated ? &ablation.decoder : nullptr,
                                     ablated ? &ablation.cross : nullptr));
  }
  // The final norm and the logits are row-wise: the earlier rows are the earlier run's.
  const Mat freshOut = stackOutput(true, dt.layers.back().residualOut.bottomRows(nt - p));
  t.decoderOut = p > 0 ? stackRows(*reuse.decoderOut, p, freshOut) : freshOut;
  if (withLogits)
    t.logits = p > 0 && reuse.logits && reuse.logits->rows() >= p ? stackRows(*reuse.logits, p, logits(freshOut))
                                                                  : logits(t.decoderOut);
  return t;
}

std::unique_ptr<EncDecDecodeSession> EncDecModel::startDecoding(const std::vector<int>& source) const {
  std::shared_ptr<const EncDecModel> self = weak_from_this().lock();
  if (!self)
    throw std::logic_error(
        "EncDecModel::startDecoding: the model must be owned by a shared_ptr (EncDecModel::open gives one): the "
        "session keeps it alive");
  return std::make_unique<EncDecDecodeSession>(std::move(self), source);
}

Mat EncDecModel::decoderOutputProjection(int layer, bool cross) const {
  if (layer < 0 || layer >= static_cast<int>(decoder_.size()))
    throw std::out_of_range("EncDecModel::decoderOutputProjection: no decoder layer " + std::to_string(layer));
  const EncDecLayerWeights& w = decoder_[static_cast<std::size_t>(layer)];
  return (cross ? w.cross : w.self).oW.unpacked();
}

std::vector<int> EncDecModel::generateGreedy(const std::vector<int>& source, int maxNewTokens) const {
  std::unique_ptr<EncDecDecodeSession> s = startDecoding(source);
  std::vector<int> out;
  std::vector<int> input;  // the decoder's input so far: transformers' input_ids, which the generation rules read
  const int lengthLimit = generationLengthLimit(config_.generation, config_.maxPositions, maxNewTokens);
  int next = config_.decoderStartId;
  for (int i = 0; i < maxNewTokens && s->position() < config_.maxPositions; ++i) {
    Vec logits = s->step(next);
    input.push_back(next);
    applyGenerationRules(config_.generation, input, config_.eosId, lengthLimit, logits);
    logits.maxCoeff(&next);  // the first maximum, as torch.argmax
    out.push_back(next);
    if (next == config_.eosId) break;
  }
  return out;
}

EncDecDecodeSession::EncDecDecodeSession(std::shared_ptr<const EncDecModel> model, const std::vector<int>& source)
    : owner_(std::move(model)), m_(*owner_), encOut_(m_.encode(source)) {
  const Eigen::Index d = m_.config_.decoderAttnWidth();
  for (const EncDecLayerWeights& w : m_.decoder_) {
    const Mat kv = w.cross.kvW.affine(encOut_, w.cross.kvB);  // [n_src, 2d], once per text
    crossK_.push_back(kv.leftCols(d));
    crossV_.push_back(kv.rightCols(d));
    selfK_.emplace_back(0, d);
    selfV_.emplace_back(0, d);
  }
}

Vec EncDecDecodeSession::step(int id) {
  const EncDecConfig& c = m_.config_;
  if (position_ >= c.maxPositions)
    throw InputError("the target text reached max_position_embeddings (" + std::to_string(c.maxPositions) + ")");
  if (id < 0 || id >= c.decoderVocabSize)
    throw InputError("the target token id " + std::to_string(id) + " is outside the vocabulary (" +
                     std::to_string(c.decoderVocabSize) + " tokens)");
  const Eigen::Index a = c.decoderAttnWidth();
  const int heads = c.decoderHeads, dh = c.decoderHeadWidth();
  const float scale = scoreScale(c, dh);
  const bool pre = c.preNormRms;
  // The new token's row of T5's causal bias over keys 0 … position_ (the same for every layer).
  const std::vector<Mat> bias = m_.positionBias(true, position_, 1, position_ + 1);
  auto norm = [this](const Mat& v, const WeightView& g, const WeightView& b) { return m_.layerNorm(v, g, b); };
  Mat y = m_.embed(m_.decEmbed_, "decoder", {id}, position_, c.decoderVocabSize);  // [1, d]
  Mat added;
  for (std::size_t l = 0; l < m_.decoder_.size(); ++l) {
    const EncDecLayerWeights& w = m_.decoder_[l];
    const Mat h = residualBlock(
        pre, y, w.self.normW, w.self.normB,
        [&](const Mat& in) {
          const Mat qkv = w.self.qkvW.affine(in, w.self.qkvB);  // [1, 3a]
          Mat& k = selfK_[l];
          Mat& v = selfV_[l];
          k.conservativeResize(k.rows() + 1, Eigen::NoChange);
          v.conservativeResize(v.rows() + 1, Eigen::NoChange);
          k.bottomRows(1) = qkv.middleCols(a, a);
          v.bottomRows(1) = qkv.rightCols(a);
          return w.self.oW.affine(attendRow(qkv.leftCols(a), k, v, heads, dh, scale, bias), w.self.oB);
        },
        added, norm);
    const Mat h2 = residualBlock(
        pre, h, w.cross.normW, w.cross.normB,
        [&](const Mat& in) {
          const Mat q = w.cross.qkvW.affine(in, w.cross.qkvB);  // [1, a]
          return w.cross.oW.affine(attendRow(q, crossK_[l], crossV_[l], heads, dh, scale, {}), w.cross.oB);
        },
        added, norm);
    y = residualBlock(
        pre, h2, w.normW, w.normB, [&](const Mat& in) { return m_.feedForward(in, w); }, added, norm);
  }
  ++position_;
  return m_.logits(m_.stackOutput(true, y)).row(0).transpose();
}

}  // namespace attnlab
