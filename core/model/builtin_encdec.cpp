#include "core/model/builtin_encdec.h"

#include "core/base/errors.h"
#include "core/model/blocks.h"

namespace attnlab {
namespace {

void checkRows(const Mat& x, const ModelConfig& c, const char* which) {
  if (x.rows() == 0)
    throw InputError(std::string("the ") + which + " has no tokens: type " +
                     (std::string(which) == "target" ? "a target text" : "a source sentence"));
  if (x.rows() > c.maxTokens)
    throw InputError(std::string("the ") + which + " has " + std::to_string(x.rows()) +
                     " tokens; the built-in model takes at most " + std::to_string(c.maxTokens));
  if (x.cols() != c.dModel)
    throw InputError(std::string("the ") + which + " rows have " + std::to_string(x.cols()) +
                     " components, but d_model is " + std::to_string(c.dModel));
}

}  // namespace

ModelConfig BuiltinEncDec::encoderConfig(ModelConfig config) {
  config.mode = Mode::Block;
  config.causal = false;
  return config;
}

BuiltinEncDec::BuiltinEncDec(const ModelConfig& config, bool lowercase, const RunControl& control)
    : config_(config), encoder_(encoderConfig(config), lowercase, control) {}

BuiltinEncDec::BuiltinEncDec(const ModelConfig& config, std::vector<BuiltinLayerWeights> weights, bool lowercase)
    : config_(config), encoder_(encoderConfig(config), std::move(weights), lowercase) {}

EncDecTrace BuiltinEncDec::forward(const std::vector<std::string>& source, const std::vector<std::string>& target,
                                   const RunControl& control) const {
  if (source.empty()) throw InputError("the source has no tokens: type a source sentence");
  if (target.empty()) throw InputError("the target has no tokens: type a target text");
  EncDecTrace t = forwardEmbeddings(encoder_.embed(source), encoder_.embed(target), control);
  t.encoder.tokens = source;
  t.decoder.tokens = target;
  return t;
}

EncDecTrace BuiltinEncDec::forwardEmbeddings(const Mat& source, const Mat& target, const RunControl& control) const {
  checkRows(source, config_, "source");
  checkRows(target, config_, "target");
  const int layers = config_.layers, heads = encoder_.structure().heads;
  checkTraceMemory(source.rows(), layers, heads);
  checkTraceMemory(target.rows(), layers, 2 * heads);  // self and cross maps (the cross ones n_tgt × n_src)
  EncDecTrace t;
  t.encoder = encoder_.forwardEmbeddings(source, control.part(0, 0.5));
  t.encoderOut = t.encoder.layers.back().residualOut;
  Trace& dec = t.decoder;
  dec.embeddings = target;
  dec.causal = true;
  dec.tokens.resize(target.rows());
  Mat y = target;
  const RunControl rest = control.part(0.5, 1);
  for (int l = 0; l < layers; ++l) {
    rest.checkpoint(static_cast<double>(l) / layers);
    t.cross.emplace_back();
    dec.layers.push_back(decoderLayer(l, y, t.encoderOut, t.cross.back()));
    y = dec.layers.back().residualOut;
  }
  rest.checkpoint(1.0);
  t.decoderOut = y;
  return t;
}

LayerTrace BuiltinEncDec::decoderLayer(int layer, const Mat& y, const Mat& encOut, CrossLayerTrace& cross) const {
  const BuiltinLayerWeights& w = encoder_.weights()[layer];
  const EffectiveStructure& s = encoder_.structure();
  const bool pre = s.norm == NormPlacement::Pre, post = s.norm == NormPlacement::Post;
  auto ln1 = [&](const Mat& x) { return layerNorm(x, w.ln1Gamma, w.ln1Beta, kBuiltinLayerNormEps); };
  LayerTrace t;

  // Self-attention, causal: y ← [LN1](y + SelfAttn([LN1](y)))
  const Mat selfIn = pre ? ln1(y) : y;
  t.attentionOut = encoder_.attend(w, selfIn, selfIn, true, t.heads, t.concat, layer);
  Mat h = s.skip ? Mat(y + t.attentionOut) : t.attentionOut;
  if (post) h = ln1(h);

  // Cross-attention, the same weights and placement: h ← [LN1](h + CrossAttn([LN1](h), enc)), maps [n_tgt, n_src].
  cross.attentionOut = encoder_.attend(w, pre ? ln1(h) : h, encOut, false, cross.heads, cross.concat, layer);
  h = s.skip ? Mat(h + cross.attentionOut) : cross.attentionOut;
  if (post) h = ln1(h);
  cross.residualOut = h;

  // MLP: h ← [LN2](h + MLP([LN2](h)))
  if (s.mlp) {
    auto ln2 = [&](const Mat& x) { return layerNorm(x, w.ln2Gamma, w.ln2Beta, kBuiltinLayerNormEps); };
    t.mlpOut = encoder_.mlp(w, pre ? ln2(h) : h);
    h = s.skip ? Mat(h + t.mlpOut) : t.mlpOut;
    if (post) h = ln2(h);
  }
  t.residualOut = std::move(h);
  return t;
}

}  // namespace attnlab
