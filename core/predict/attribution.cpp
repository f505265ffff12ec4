#include "core/predict/attribution.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/predict/prediction.h"

namespace attnlab {
namespace {

void refuseSandwichNorms(const Model& model) {
  const std::string kind = model.info().kind;
  if (kind == "gemma2" || kind == "gemma3")
    throw InputError("direct logit attribution per head is not defined for " + kind +
                     ": its post-attention norm makes a layer's attention output non-linear in its heads");
}

/// u_t [− u_v] as a [d] vector in double.
VecD direction(const Unembedding& u, int target, int versus) {
  VecD w = u.weights().row(target).transpose().cast<double>();
  if (versus >= 0) w -= u.weights().row(versus).transpose().cast<double>();
  return w;
}

/// The frozen final norm as a linear form: c ↦ [γ ⊙ (c − mean(c)) / σ] · w = c · g.
VecD frozenForm(const Unembedding& u, const VecD& w, double sigma) {
  VecD g = w;
  if (u.norm == Unembedding::Norm::None) return g;
  g = g.cwiseProduct(u.gamma.cast<double>()) / sigma;
  if (u.norm == Unembedding::Norm::Layer) g.array() -= g.mean();  // centring is symmetric: move it onto g
  return g;
}

}  // namespace

HeadContributions headContributions(const Model& model, const TokenizedText& text, const Trace& trace, int position) {
  refuseSandwichNorms(model);
  requireUnembedding(model);
  position = resolvePosition(position, trace.tokenCount());
  const int layers = trace.layerCount(), heads = trace.headCount();
  const int dh = static_cast<int>(trace.layers[0].heads[0].output.cols());
  const int rows = heads + 1;  // row h: head h alone; the last row: all zero → b_O
  TokenizedText probeText;
  Trace source;
  for (int r = 0; r < rows; ++r) {
    probeText.tokens.push_back(text.tokens[r % text.tokens.size()]);
    if (!text.ids.empty()) probeText.ids.push_back(text.ids[r % text.ids.size()]);
    source.tokens.push_back(trace.tokens[r % trace.tokens.size()]);
  }
  Intervention iv;
  iv.source = &source;
  source.layers.resize(layers);
  for (int l = 0; l < layers; ++l) {
    source.layers[l].heads.resize(heads);
    for (int h = 0; h < heads; ++h) {
      Mat out = Mat::Zero(rows, dh);
      out.row(h) = trace.layers[l].heads[h].output.row(position);
      source.layers[l].heads[h].output = out;
      iv.patchHeads.push_back({l, h});
    }
  }
  const Trace probe = model.forward(probeText, {}, iv);
  HeadContributions c;
  c.position = position;
  c.outputBias.resize(layers, trace.embeddings.cols());
  for (int l = 0; l < layers; ++l) {
    const Mat& a = probe.layers[l].attentionOut;  // [rows, d]
    c.outputBias.row(l) = a.row(heads);
    c.heads.push_back(a.topRows(heads).rowwise() - a.row(heads));
  }
  return c;
}

Attribution directLogitAttribution(const Model& model, const Trace& trace, const HeadContributions& parts, int target,
                                   int versus) {
  const Unembedding& u = requireUnembedding(model);
  for (int id : {target, versus})
    if (id >= u.vocab) throw InputError("token id " + std::to_string(id) + " is outside the vocabulary");
  const int p = parts.position, layers = trace.layerCount();
  const Mat& x = trace.layers.back().residualOut;
  const VecD w = direction(u, target, versus);
  const VecD g = frozenForm(u, w, u.scales(x.row(p)).coeff(0));
  Attribution a;
  a.position = p;
  a.target = target;
  a.versus = versus;
  a.heads.resize(layers, trace.headCount());
  a.mlp.resize(layers);
  a.embeddings = trace.embeddings.row(p).cast<double>().dot(g);
  a.bias = parts.outputBias.cast<double>().colwise().sum().transpose().dot(g);  // Σ_l b_O,l · g
  if (u.beta.size() > 0) a.bias += u.beta.cast<double>().dot(w);
  if (u.bias.size() > 0) a.bias += u.bias(target) - (versus >= 0 ? u.bias(versus) : 0.0f);
  for (int l = 0; l < layers; ++l) {
    a.heads.row(l) = (parts.heads[l].cast<double>() * g).transpose();
    if (trace.layers[l].mlpOut.size() > 0)
      a.mlp(l) = trace.layers[l].mlpOut.row(p).cast<double>().dot(g);
    else
      a.mlp(l) = 0.0;
  }
  const VecD normed = u.normalise(x.row(p)).row(0).transpose().cast<double>();
  a.logit = normed.dot(w);
  if (u.bias.size() > 0) a.logit += u.bias(target) - (versus >= 0 ? u.bias(versus) : 0.0f);
  return a;
}

double logitDifference(const Unembedding& u, const Vec& x, int target, int versus) {
  const Vec normed = u.normalise(x.transpose()).row(0).transpose();
  auto logit = [&](int t) {
    double s = normed.dot(u.weights().row(t).transpose());
    if (u.bias.size() > 0) s += u.bias(t);
    return u.softcap > 0.0 ? std::tanh(s / u.softcap) * u.softcap : s;
  };
  return logit(target) - (versus >= 0 ? logit(versus) : 0.0);
}

}  // namespace attnlab
