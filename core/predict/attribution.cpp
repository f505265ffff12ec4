#include "core/predict/attribution.h"

#include <algorithm>
#include <cmath>

#include "core/base/errors.h"
#include "core/model/layer_outputs.h"
#include "core/predict/prediction.h"

namespace attnlab {
namespace {

/// Refuses the models whose logit is not a sum of per-component shares: Gemma 2/3's sandwich norms, and a head
/// with a transform before its final norm (BERT's masked-LM head).
void refuseNonLinear(const Model& model) {
  const std::string kind = model.info().kind;
  if (kind == "gemma2" || kind == "gemma3")
    throw InputError("direct logit attribution per head is not defined for " + kind +
                     ": its post-attention norm makes a layer's attention output non-linear in its heads");
  const Unembedding* u = model.unembedding();
  if (u && u->hasTransform())
    throw InputError("direct logit attribution is not defined for " + kind +
                     ": its masked-LM head applies a dense layer and GELU before the final norm, so the logit is "
                     "not linear in the residual stream's parts (prediction, logit lens, ablation and patching "
                     "work through the whole head)");
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
  refuseNonLinear(model);
  requireUnembedding(model);
  position = resolvePosition(position, trace.tokenCount());
  const int layers = trace.layerCount(), heads = trace.headCount();
  const int dh = static_cast<int>(trace.layers[0].headWidth());
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
    source.layers[l].concat = Mat::Zero(rows, static_cast<Eigen::Index>(heads) * dh);  // row h: head h alone
    for (int h = 0; h < heads; ++h) {
      source.layers[l].concat.block(h, static_cast<Eigen::Index>(h) * dh, 1, dh) =
          trace.layers[l].headOutput(h).row(position);
      iv.patchHeads.push_back({l, h});
    }
  }
  const Trace probe = model.forward(probeText, {}, iv);
  HeadContributions c;
  c.position = position;
  c.outputBias.resize(layers, trace.embeddings.cols());
  for (int l = 0; l < layers; ++l) {
    const Mat a = attentionOutOf(probe, l);  // [rows, d]
    c.outputBias.row(l) = a.row(heads);
    c.heads.push_back(a.topRows(heads).rowwise() - a.row(heads));
  }
  return c;
}

namespace {

/// Runs `text`'s ids cycled to concat.rows() tokens with every head of every layer patched to its columns of
/// concat [rows, H·d_head] (the same rows in every layer); each layer's attentionOut is then concat·W_O + b_O.
Trace probeAll(const Model& model, const TokenizedText& text, const Mat& concat, int layers, int heads) {
  const auto rows = static_cast<size_t>(concat.rows());
  TokenizedText probeText;
  Trace source;
  for (size_t r = 0; r < rows; ++r) {
    probeText.tokens.push_back(text.tokens[r % text.tokens.size()]);
    if (!text.ids.empty()) probeText.ids.push_back(text.ids[r % text.ids.size()]);
    source.tokens.push_back(text.tokens[r % text.tokens.size()].text);
  }
  Intervention iv;
  iv.source = &source;
  source.layers.resize(static_cast<size_t>(layers));
  for (int l = 0; l < layers; ++l) {
    source.layers[l].heads.resize(static_cast<size_t>(heads));
    source.layers[l].concat = concat;
    for (int h = 0; h < heads; ++h) iv.patchHeads.push_back({l, h});
  }
  return model.forward(probeText, {}, iv);
}

}  // namespace

OutputProjections readOutputProjections(const Model& model, const TokenizedText& text, int chunk,
                                        const RunControl& control) {
  refuseNonLinear(model);
  const ModelInfo info = model.info();
  const int width = info.heads * info.dHead;
  OutputProjections p;
  p.weights.resize(static_cast<size_t>(info.layers));
  for (int l = 0; l < info.layers; ++l) {
    Mat wv;
    Mat& wo = p.weights[static_cast<size_t>(l)];
    if (!model.ovCircuitWeights(l, wv, wo) || wo.rows() != width || wo.cols() != info.dModel)
      return probeOutputProjections(model, text, chunk, control);
  }
  control.checkpoint(0.5);
  const Trace t = probeAll(model, text, Mat::Zero(2, width), info.layers, info.heads);  // b_O: every head zero
  p.bias.resize(info.layers, info.dModel);
  for (int l = 0; l < info.layers; ++l) p.bias.row(l) = attentionOutRows(t, l, 0, 1);
  control.checkpoint(1.0);
  return p;
}

OutputProjections probeOutputProjections(const Model& model, const TokenizedText& text, int chunk,
                                         const RunControl& control) {
  refuseNonLinear(model);
  const ModelInfo info = model.info();
  const int width = info.heads * info.dHead;  // rows of W_O, then one zero row for b_O
  chunk = std::max(2, std::min(chunk, info.maxTokens > 0 ? info.maxTokens : chunk));
  OutputProjections p;
  p.weights.assign(static_cast<size_t>(info.layers), Mat(width, info.dModel));
  p.bias.resize(info.layers, info.dModel);
  for (int begin = 0; begin <= width; begin += chunk) {
    control.checkpoint(static_cast<double>(begin) / (width + 1));
    const int rows = std::min(chunk, width + 1 - begin), basisRows = std::min(rows, width - begin);
    Mat basis = Mat::Zero(rows, width);
    for (int r = 0; r < basisRows; ++r) basis(r, begin + r) = 1.0f;
    const Trace t = probeAll(model, text, basis, info.layers, info.heads);
    for (int l = 0; l < info.layers; ++l) {
      const Mat a = attentionOutOf(t, l);                      // [rows, d]
      if (basisRows < rows) p.bias.row(l) = a.row(basisRows);  // this chunk holds the zero row
      p.weights[l].middleRows(begin, basisRows) = a.topRows(basisRows);
    }
  }
  for (int l = 0; l < info.layers; ++l) p.weights[l].rowwise() -= p.bias.row(l);
  control.checkpoint(1.0);
  return p;
}

HeadContributions headContributions(const OutputProjections& projections, const Trace& trace, int position) {
  position = resolvePosition(position, trace.tokenCount());
  HeadContributions c;
  c.position = position;
  c.outputBias = projections.bias;
  const int heads = trace.headCount();
  for (int l = 0; l < trace.layerCount(); ++l) {
    const Mat& w = projections.weights[l];  // [H·d_head, d]
    const Eigen::Index dh = w.rows() / heads;
    Mat out(heads, w.cols());
    for (int h = 0; h < heads; ++h)
      out.row(h) = trace.layers[l].concat.row(position).segment(h * dh, dh) * w.middleRows(h * dh, dh);
    c.heads.push_back(out);
  }
  return c;
}

namespace {

/// Everything of the attribution but the heads' shares and the output biases (added by the callers): the
/// embeddings, β and b, the MLPs, through g = the frozen form at the position's σ (returned in `g`).
Attribution attributionFrame(const Model& model, const Trace& trace, int p, int target, int versus, VecD& g) {
  const Unembedding& u = requireUnembedding(model);
  refuseNonLinear(model);
  for (int id : {target, versus})
    if (id >= u.vocab) throw InputError("token id " + std::to_string(id) + " is outside the vocabulary");
  const int layers = trace.layerCount();
  const Mat& x = trace.layers.back().residualOut;
  const VecD w = direction(u, target, versus);
  g = frozenForm(u, w, u.scales(x.row(p)).coeff(0));
  Attribution a;
  a.position = p;
  a.target = target;
  a.versus = versus;
  a.heads.resize(layers, trace.headCount());
  a.mlp.resize(layers);
  a.embeddings = trace.embeddings.row(p).cast<double>().dot(g);
  a.bias = 0.0;
  if (u.beta.size() > 0) a.bias += u.beta.cast<double>().dot(w);
  if (u.bias.size() > 0) a.bias += u.bias(target) - (versus >= 0 ? u.bias(versus) : 0.0f);
  for (int l = 0; l < layers; ++l) {             // a long input's MLP outputs are recomputed: one row each
    const Mat row = mlpOutRows(trace, l, p, 1);  // [1, d], or [1, 0] without an MLP
    a.mlp(l) = row.size() > 0 ? row.row(0).cast<double>().dot(g) : 0.0;
  }
  const VecD normed = u.normalise(x.row(p)).row(0).transpose().cast<double>();
  a.logit = normed.dot(w);
  if (u.bias.size() > 0) a.logit += u.bias(target) - (versus >= 0 ? u.bias(versus) : 0.0f);
  return a;
}

}  // namespace

Attribution directLogitAttribution(const Model& model, const Trace& trace, const HeadContributions& parts, int target,
                                   int versus) {
  VecD g;
  Attribution a = attributionFrame(model, trace, parts.position, target, versus, g);
  a.bias += parts.outputBias.cast<double>().colwise().sum().transpose().dot(g);  // Σ_l b_O,l · g
  for (int l = 0; l < trace.layerCount(); ++l) a.heads.row(l) = (parts.heads[l].cast<double>() * g).transpose();
  return a;
}

ProjectedForm projectedForm(const Model& model, const OutputProjections& projections, int target, int versus) {
  return projectedForms(model, projections, {target}, versus).front();
}

std::vector<ProjectedForm> projectedForms(const Model& model, const OutputProjections& projections,
                                          const std::vector<int>& targets, int versus) {
  const Unembedding& u = requireUnembedding(model);
  refuseNonLinear(model);
  std::vector<int> ids = targets;
  ids.push_back(versus);
  for (int id : ids)
    if (id >= u.vocab) throw InputError("token id " + std::to_string(id) + " is outside the vocabulary");
  const auto count = static_cast<Eigen::Index>(targets.size());
  MatD g0(u.d, count);  // [d, targets]: the frozen forms at σ = 1
  for (Eigen::Index j = 0; j < count; ++j) g0.col(j) = frozenForm(u, direction(u, targets[j], versus), 1.0);
  const Mat g0f = g0.cast<float>();  // the products in float, as headContributions' shares are
  const VecD bias = g0.transpose() * projections.bias.cast<double>().colwise().sum().transpose();  // [targets]
  std::vector<ProjectedForm> forms(targets.size());
  for (Eigen::Index j = 0; j < count; ++j) {
    forms[j].target = targets[j];
    forms[j].versus = versus;
    forms[j].outputBias = bias(j);
  }
  for (const Mat& w : projections.weights) {
    const MatD v = (w * g0f).cast<double>();  // [H·d_head, targets]
    for (Eigen::Index j = 0; j < count; ++j) forms[j].heads.push_back(v.col(j));
  }
  return forms;
}

Attribution directLogitAttribution(const Model& model, const Trace& trace, const ProjectedForm& form, int position) {
  const int p = resolvePosition(position, trace.tokenCount());
  VecD g;
  Attribution a = attributionFrame(model, trace, p, form.target, form.versus, g);
  const double sigma = model.unembedding()->scales(trace.layers.back().residualOut.row(p)).coeff(0);  // 1: no norm
  a.bias += form.outputBias / sigma;
  const int heads = trace.headCount();
  for (int l = 0; l < trace.layerCount(); ++l) {
    const VecD c = trace.layers[l].concat.row(p).transpose().cast<double>();  // [H·d_head]
    const Eigen::Index dh = c.size() / heads;
    for (int h = 0; h < heads; ++h)
      a.heads(l, h) = c.segment(h * dh, dh).dot(form.heads[l].segment(h * dh, dh)) / sigma;
  }
  return a;
}

double logitDifference(const Unembedding& u, const Vec& x, int target, int versus) {
  const Vec normed = u.normalise(u.transformed(x.transpose())).row(0).transpose();
  auto logit = [&](int t) {
    double s = normed.dot(u.weights().row(t).transpose());
    if (u.bias.size() > 0) s += u.bias(t);
    return u.softcap > 0.0 ? std::tanh(s / u.softcap) * u.softcap : s;
  };
  return logit(target) - (versus >= 0 ? logit(versus) : 0.0);
}

}  // namespace attnlab
