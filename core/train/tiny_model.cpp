#include "core/train/tiny_model.h"

#include <cmath>
#include <map>
#include <set>

#include "core/base/errors.h"
#include "core/model/forward_hooks.h"
#include "core/train/tiny_net.h"

namespace attnlab {

namespace {

void checkShapes(const TinyConfig& c, const TinyParams<float>& p) {
  std::vector<std::pair<std::string, std::pair<int, int>>> have;
  p.forEach([&](const std::string& name, const Eigen::MatrixXf& m) {
    have.push_back({name, {static_cast<int>(m.rows()), static_cast<int>(m.cols())}});
  });
  const auto want = tinyTensorShapes(c);
  if (have != want) throw InputError("the tiny model's weights do not match its configuration");
}

/// Python's hooks (forward_hooks.h) at the tiny network's places: Q, K, V as the column blocks of its Q | K | V, the
/// masked scores before the softmax (Scores) and the maps after it (Pattern), the outputs and streams.
void addForwardHooks(const ForwardHooks& fh, int layers, TinyHooks<float>& hooks) {
  hooks.site = [&fh](TinySite site, int layer, Mat& m) {
    if (site == TinySite::Qkv) {
      const Eigen::Index d = m.cols() / 3;
      runHook(&fh, HookSite::Q, layer, m.leftCols(d));
      runHook(&fh, HookSite::K, layer, m.middleCols(d, d));
      runHook(&fh, HookSite::V, layer, m.rightCols(d));
      return;
    }
    const HookSite s = site == TinySite::AttnOut  ? HookSite::AttnOut
                       : site == TinySite::Mid    ? HookSite::ResidMid
                       : site == TinySite::MlpOut ? HookSite::MlpOut
                       : site == TinySite::Embed  ? HookSite::Embed
                                                  : HookSite::PosEmbed;
    runHook(&fh, s, layer, m);
  };
  hooks.wantsScores = [&fh](int layer) { return fh.wants(HookSite::Scores, layer); };
  hooks.scores = [&fh](int layer, std::vector<Mat>& scores) { fh.callMaps(HookSite::Scores, layer, scores); };
  bool pattern = false;  // the heads' outputs are made again from the maps only when a hook may change them
  for (int l = 0; l < layers; ++l) pattern = fh.wants(HookSite::Pattern, l) || pattern;
  if (!pattern) return;
  hooks.attention = [&fh](int layer, std::vector<Mat>& maps) {
    if (fh.wants(HookSite::Pattern, layer)) fh.callMaps(HookSite::Pattern, layer, maps);
  };
}

}  // namespace

int tinyWordSymbol(const std::string& word, int vocab) {
  uint32_t h = 2166136261u;  // FNV-1a: stable across runs and platforms (std::hash is not)
  for (unsigned char ch : word) h = (h ^ ch) * 16777619u;
  return kTinyFirstSymbol + static_cast<int>(h % static_cast<uint32_t>(vocab - kTinyFirstSymbol));
}

TinyModel::TinyModel(TinyConfig config, TinyParams<float> params, std::string name)
    : config_(std::move(config)), params_(std::move(params)), name_(std::move(name)) {
  validate(config_);
  checkShapes(config_, params_);
  Unembedding& u = unembedding_;
  u.norm = config_.layerNorm ? Unembedding::Norm::Layer : Unembedding::Norm::None;
  if (config_.layerNorm) {
    u.gamma = params_.lnfGamma.col(0);
    u.beta = params_.lnfBeta.col(0);
  }
  u.eps = kTinyLayerNormEps;
  u.data = params_.unembed.data();  // [d, V] column-major: W_U(t, j) at t·d + j
  u.vocab = config_.vocab;
  u.d = config_.dModel;
  u.rowStride = config_.dModel;
  u.colStride = 1;
}

ModelInfo TinyModel::info() const {
  ModelInfo i;
  i.name = name_;
  i.kind = "tiny";
  i.layers = config_.layers, i.heads = config_.heads, i.dModel = config_.dModel, i.dHead = config_.dHead();
  i.maxTokens = config_.context;
  return i;
}

TokenizedText TinyModel::tokenize(const std::string& text) const {
  TokenizedText out;
  const std::vector<Token> words = tokenizeWords(text, WordTokenizerOptions{true});
  Token bos;
  bos.text = "<bos>";
  out.tokens.push_back(bos);
  out.ids.push_back(kTinyBos);
  const int symbols = config_.vocab - kTinyFirstSymbol;
  std::map<std::string, int> assigned;  // word → symbol, this sentence
  std::set<int> used;
  for (const Token& w : words) {
    auto it = assigned.find(w.text);
    if (it == assigned.end()) {
      int id = tinyWordSymbol(w.text, config_.vocab);
      // Probe for a free symbol; once all are used, words share symbols (the hash's choice).
      if (static_cast<int>(used.size()) < symbols)
        while (used.count(id)) id = kTinyFirstSymbol + (id - kTinyFirstSymbol + 1) % symbols;
      used.insert(id);
      it = assigned.emplace(w.text, id).first;
    }
    out.tokens.push_back(w);
    out.ids.push_back(it->second);
  }
  return out;
}

std::string TinyModel::vocabularyPiece(int id) const {
  if (id < 0 || id >= config_.vocab) return {};
  return id == 0 ? "<bos>" : "#" + std::to_string(id);
}

int TinyModel::vocabularyId(const std::string& piece) const {
  if (piece == "<bos>") return 0;
  if (piece.size() < 2 || piece[0] != '#' || piece.find_first_not_of("0123456789", 1) != std::string::npos ||
      piece.size() > 9)
    return -1;
  const int id = std::stoi(piece.substr(1));
  return id < config_.vocab ? id : -1;
}

Trace TinyModel::forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const {
  control.checkpoint(0.0);
  if (text.tokens.size() <= 1 || text.ids.size() != text.tokens.size())
    throw InputError("the sentence has no tokens: type at least one word");
  const std::vector<int>& ids = text.ids;
  const int n = static_cast<int>(ids.size());
  if (n > config_.context)
    throw InputError("the sentence has " + std::to_string(n) + " tokens with BOS; this tiny model was trained on " +
                     std::to_string(config_.context) + " at most");
  for (int id : ids)
    if (id < 0 || id >= config_.vocab)
      throw InputError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                       std::to_string(config_.vocab));
  const int dh = config_.dHead();
  checkIntervention(iv, config_.layers, config_.heads, n);
  TinyHooks<float> hooks;  // ablation and patching at the places every model applies them (intervention.h)
  hooks.concat = [&](int layer, Mat& concat) {
    interveneOnConcat(iv, layer, config_.heads, dh, concat);
    runHook(iv.hooks, HookSite::Z, layer, concat);
  };
  hooks.residual = [&](int layer, Mat& stream) {
    interveneOnResidual(iv, layer, stream);
    if (layer > 0) runHook(iv.hooks, HookSite::ResidPost, layer - 1, stream);  // the same stream, as TransformerLens
    if (layer < config_.layers) runHook(iv.hooks, HookSite::ResidPre, layer, stream);
  };
  if (iv.hooks) addForwardHooks(*iv.hooks, config_.layers, hooks);
  TinyForward<float> f;
  tinyForward(config_, params_, ids.data(), 1, n, f, nullptr, iv.empty() && !iv.hooks ? nullptr : &hooks);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  Trace t;
  for (const Token& token : text.tokens) t.tokens.push_back(token.text);
  t.tokenIds = ids;
  t.causal = true;
  t.embeddings = f.x0;
  for (const TinyLayerCache<float>& L : f.layers) {
    // The stream this layer read, a residual patch applied: what Trace::layerInput gives.
    if (iv.residualLayer == t.layerCount() || iv.hooks)
      (t.layers.empty() ? t.embeddings : t.layers.back().residualOut) = L.xIn;
    LayerTrace lt;
    for (int h = 0; h < config_.heads; ++h) {
      HeadTrace ht;
      ht.q = L.q().middleCols(h * dh, dh);
      ht.keys = shareMat(L.k().middleCols(h * dh, dh));
      ht.values = shareMat(L.v().middleCols(h * dh, dh));
      ht.scores = ht.q * ht.k().transpose() * scale;
      ht.attention = L.attention[static_cast<std::size_t>(h)];
      lt.heads.push_back(std::move(ht));
    }
    lt.concat = L.concat;
    lt.attentionOut = L.attnOut;
    lt.mlpOut = L.mlpOut;
    lt.residualOut = L.xOut;
    t.layers.push_back(std::move(lt));
  }
  return t;
}

UnembeddingView TinyModel::tokenEmbeddings() const {
  const Mat& e = params_.tokEmb;  // column-major [V, d]
  return UnembeddingView(e.data(), e.rows(), e.cols(), Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(e.rows(), 1));
}

bool TinyModel::ovCircuitWeights(int layer, Mat& wv, Mat& wo) const {
  if (layer < 0 || layer >= config_.layers) return false;
  wv = params_.layers[static_cast<std::size_t>(layer)].wv;
  wo = params_.layers[static_cast<std::size_t>(layer)].wo;
  return true;
}

}  // namespace attnlab
