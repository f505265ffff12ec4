#include "core/model/builtin_model.h"

#include <cmath>
#include <cstdio>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/model/attention_head.h"
#include "core/model/blocks.h"
#include "core/model/embedding.h"
#include "core/model/forward_hooks.h"
#include "core/model/trace.h"

namespace attnlab {
namespace {

constexpr double kLayerNormEps = kBuiltinLayerNormEps;

/// [rows, cols] with entries N(0, std²) from its own stream, so changing one matrix's shape never
/// reshuffles the others.
Mat gaussian(int rows, int cols, double std, uint64_t seed, int layer, int which) {
  Rng rng(mixSeed(seed, static_cast<uint64_t>(layer), static_cast<uint64_t>(which)));
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(rng.normal() * std);
  return m;
}

}  // namespace

void checkBuiltinWeightMemory(const ModelConfig& config) {
  // Per layer: W_Q, W_K, W_V, W_O (d × d each) and the MLP's d × 4d and 4d × d, plus biases and norms (~10 d).
  const double d = config.dModel;
  const double bytes = static_cast<double>(config.layers) * (12.0 * d * d + 10.0 * d) * sizeof(float);
  const double budget = activationBudgetBytes();
  if (bytes <= budget) return;
  char sizes[96];
  std::snprintf(sizes, sizeof sizes, "%.1f GB (the limit is %.1f GB, half of this computer's memory)",
                bytes / (1024.0 * 1024 * 1024), budget / (1024.0 * 1024 * 1024));
  throw InputError("the built-in model's weights at d_model " + std::to_string(config.dModel) + " × " +
                   std::to_string(config.layers) + " layers would take " + sizes +
                   ": use a smaller d_model or fewer layers");
}

BuiltinModel::BuiltinModel(const ModelConfig& config, bool lowercase, const RunControl& control)
    : config_(config), structure_(resolve(config)), lowercase_(lowercase) {
  validate(config);
  checkBuiltinWeightMemory(config);
  const int d = config.dModel;
  // LeCun-style init N(0, 1/fan_in): keeps q·k of unit-variance inputs at variance d_head.
  const double s = 1.0 / std::sqrt(static_cast<double>(d));
  for (int l = 0; l < config.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / config.layers);
    BuiltinLayerWeights w;
    w.wq = gaussian(d, d, s, config.seed, l, 1);
    w.wk = gaussian(d, d, s, config.seed, l, 2);
    w.wv = gaussian(d, d, s, config.seed, l, 3);
    w.wo = gaussian(d, d, s, config.seed, l, 4);
    w.w1 = gaussian(d, 4 * d, s, config.seed, l, 5);
    w.w2 = gaussian(4 * d, d, 0.5 * s, config.seed, l, 6);  // fan_in 4d → std 1/√(4d)
    w.b1 = Vec::Zero(4 * d);
    w.b2 = Vec::Zero(d);
    w.ln1Gamma = w.ln2Gamma = Vec::Ones(d);
    w.ln1Beta = w.ln2Beta = Vec::Zero(d);
    layers_.push_back(std::move(w));
  }
}

BuiltinModel::BuiltinModel(const ModelConfig& config, std::vector<BuiltinLayerWeights> weights, bool lowercase)
    : config_(config), structure_(resolve(config)), lowercase_(lowercase), layers_(std::move(weights)) {
  validate(config);
  if (static_cast<int>(layers_.size()) != config.layers)
    throw InputError("expected weights for " + std::to_string(config.layers) + " layers, got " +
                     std::to_string(layers_.size()));
  const int d = config.dModel;
  auto check = [&](const Mat& m, int r, int c, const char* name) {
    if (m.rows() != r || m.cols() != c)
      throw InputError(std::string("weight ") + name + " has shape " + std::to_string(m.rows()) + "x" +
                       std::to_string(m.cols()) + ", expected " + std::to_string(r) + "x" + std::to_string(c));
  };
  auto checkVec = [&](const Vec& v, int n, const char* name) {
    if (v.size() != n) throw InputError(std::string("weight ") + name + " has the wrong length");
  };
  for (const BuiltinLayerWeights& w : layers_) {
    check(w.wq, d, d, "wq");
    check(w.wk, d, d, "wk");
    check(w.wv, d, d, "wv");
    check(w.wo, d, d, "wo");
    check(w.w1, d, 4 * d, "w1");
    check(w.w2, 4 * d, d, "w2");
    checkVec(w.b1, 4 * d, "b1");
    checkVec(w.b2, d, "b2");
    checkVec(w.ln1Gamma, d, "ln1_gamma");
    checkVec(w.ln1Beta, d, "ln1_beta");
    checkVec(w.ln2Gamma, d, "ln2_gamma");
    checkVec(w.ln2Beta, d, "ln2_beta");
  }
}

ModelInfo BuiltinModel::info() const {
  ModelInfo i;
  i.name = "built-in (d " + std::to_string(config_.dModel) + ", " + std::to_string(structure_.heads) + " heads, " +
           std::to_string(config_.layers) + " layers, seed " + std::to_string(config_.seed) + ")";
  i.kind = "builtin";
  i.layers = config_.layers;
  i.heads = structure_.heads;
  i.dModel = config_.dModel;
  i.dHead = structure_.dHead;
  i.maxTokens = config_.maxTokens;
  return i;
}

TokenizedText BuiltinModel::tokenize(const std::string& text) const {
  TokenizedText t;
  t.tokens = tokenizeWords(text, WordTokenizerOptions{lowercase_});
  return t;
}

Trace BuiltinModel::forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const {
  if (!iv.empty())
    throw InputError(
        info().name +
        " cannot ablate or patch heads (GPT-2, BERT, the decoder families and the trained tiny models can)");
  const int n = static_cast<int>(text.tokens.size());
  if (n == 0) throw InputError("the sentence has no tokens: type at least one word");
  if (n > config_.maxTokens)
    throw InputError("the sentence has " + std::to_string(n) + " tokens; the built-in model takes at most " +
                     std::to_string(config_.maxTokens));
  std::vector<std::string> words;
  words.reserve(n);
  for (const Token& tok : text.tokens) words.push_back(tok.text);
  Trace trace = forwardEmbeddings(embed(words), control, iv.hooks);
  trace.tokens = std::move(words);
  trace.tokenIds = text.ids;
  return trace;
}

Mat BuiltinModel::embed(const std::vector<std::string>& words) const {
  const int n = static_cast<int>(words.size()), d = config_.dModel;
  std::lock_guard<std::mutex> lock(embedMutex_);
  if (positionCache_.rows() < n) positionCache_ = positionEncoding(std::max(n, 64), d, config_.position, config_.seed);
  if (wordCache_.size() > 65536) wordCache_.clear();  // bound the memory of a long session
  Mat x = positionCache_.topRows(n);
  for (int i = 0; i < n; ++i) {
    auto it = wordCache_.find(words[i]);
    if (it == wordCache_.end()) it = wordCache_.emplace(words[i], wordEmbedding(words[i], d, config_.seed)).first;
    x.row(i) += it->second.transpose();
  }
  return x;
}

Trace BuiltinModel::forwardEmbeddings(const Mat& x, const RunControl& control, const ForwardHooks* hooks) const {
  // Checked here too, not only in forward(): a wrong width would reach Eigen products of mismatched
  // shapes, which are undefined behaviour with EIGEN_NO_DEBUG.
  const int n = static_cast<int>(x.rows());
  if (n == 0) throw InputError("the input has no tokens (X has 0 rows)");
  if (n > config_.maxTokens)
    throw InputError("the input has " + std::to_string(n) + " tokens; the built-in model takes at most " +
                     std::to_string(config_.maxTokens));
  if (x.cols() != config_.dModel)
    throw InputError("the input rows have " + std::to_string(x.cols()) + " components, but d_model is " +
                     std::to_string(config_.dModel));
  checkTraceMemory(n, config_.layers, structure_.heads);
  Trace trace;
  trace.embeddings = x;
  trace.causal = structure_.causal;
  trace.tokens.resize(x.rows());
  Mat h = x;
  for (int l = 0; l < config_.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / config_.layers);
    if (wantsHook(hooks, HookSite::ResidPre, l)) {
      runHook(hooks, HookSite::ResidPre, l, h);
      (l == 0 ? trace.embeddings : trace.layers.back().residualOut) = h;
    }
    trace.layers.push_back(runLayer(layers_[l], h, l, hooks));
    h = trace.layers.back().residualOut;
  }
  control.checkpoint(1.0);
  return trace;
}

Mat BuiltinModel::attentionBlock(const BuiltinLayerWeights& w, const Mat& x, LayerTrace& trace, int layer,
                                 const ForwardHooks* hooks) const {
  return attend(w, x, x, structure_.causal, trace.heads, trace.concat, layer, hooks);
}

Mat BuiltinModel::attend(const BuiltinLayerWeights& w, const Mat& from, const Mat& over, bool causal,
                         std::vector<HeadTrace>& heads, Mat& concat, int layer, const ForwardHooks* hooks) const {
  const int n = static_cast<int>(from.rows()), d = config_.dModel, dh = structure_.dHead;
  const float scale = structure_.scale ? 1.0f / std::sqrt(static_cast<float>(dh)) : 1.0f;
  // Without projections the rung is w = softmax(X·Xᵀ): queries, keys and values are X itself.
  Mat q = from, k = over, v = over;
  if (structure_.projections) {
    q.noalias() = from * w.wq;  // [n_q, d]
    k.noalias() = over * w.wk;  // [n_k, d]
    v.noalias() = over * w.wv;
  }
  if (hooks) {
    runHook(hooks, HookSite::Q, layer, q);
    runHook(hooks, HookSite::K, layer, k);
    runHook(hooks, HookSite::V, layer, v);
  }
  concat.resize(n, d);
  for (int hd = 0; hd < structure_.heads; ++hd) {
    const int c0 = hd * dh;
    heads.push_back(attendHead(q.middleCols(c0, dh), shareMat(k.middleCols(c0, dh)), shareMat(v.middleCols(c0, dh)),
                               scale, causal, concat.middleCols(c0, dh)));
  }
  runAttentionHooks(hooks, layer, heads, concat);
  runHook(hooks, HookSite::Z, layer, concat);
  if (!structure_.outputProjection) return concat;
  Mat out(n, d);
  out.noalias() = concat * w.wo;  // unify the heads: [n, d]·[d, d]
  return out;
}

Mat BuiltinModel::mlp(const BuiltinLayerWeights& w, const Mat& x) const {
  Mat hidden = affine(x, w.w1, w.b1);  // [n, 4d]
  if (config_.activation == Activation::Gelu)
    geluTanhInPlace(hidden);
  else
    reluInPlace(hidden);
  return affine(hidden, w.w2, w.b2);  // [n, d]
}

LayerTrace BuiltinModel::runLayer(const BuiltinLayerWeights& w, const Mat& x, int layer,
                                  const ForwardHooks* hooks) const {
  LayerTrace t;
  const EffectiveStructure& s = structure_;
  const bool pre = s.norm == NormPlacement::Pre, post = s.norm == NormPlacement::Post;

  // Attention sub-block: x ← [LN](x + attn([LN](x)))
  t.attentionOut = attentionBlock(w, pre ? layerNorm(x, w.ln1Gamma, w.ln1Beta, kLayerNormEps) : x, t, layer, hooks);
  runHook(hooks, HookSite::AttnOut, layer, t.attentionOut);
  Mat h = s.skip ? Mat(x + t.attentionOut) : t.attentionOut;
  if (post) h = layerNorm(h, w.ln1Gamma, w.ln1Beta, kLayerNormEps);
  runHook(hooks, HookSite::ResidMid, layer, h);

  // MLP sub-block: x ← [LN](x + W2·act(W1·[LN](x) + b1) + b2), hidden width 4·d
  if (s.mlp) {
    t.mlpOut = mlp(w, pre ? layerNorm(h, w.ln2Gamma, w.ln2Beta, kLayerNormEps) : h);  // [n, d]
    runHook(hooks, HookSite::MlpOut, layer, t.mlpOut);
    h = s.skip ? Mat(h + t.mlpOut) : t.mlpOut;
    if (post) h = layerNorm(h, w.ln2Gamma, w.ln2Beta, kLayerNormEps);
  }
  runHook(hooks, HookSite::ResidPost, layer, h);
  t.residualOut = std::move(h);
  return t;
}

}  // namespace attnlab
