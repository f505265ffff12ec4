#include "core/collapse/deep_stack.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/base/errors.h"
#include "core/base/gaussian_fill.h"
#include "core/base/rng.h"
#include "core/collapse/collapse_metrics.h"
#include "core/model/blocks.h"

namespace attnlab {
namespace {

constexpr double kLayerNormEps = 1e-5;

/// [rows, cols] with entries N(0, std²), from its own stream (seed, layer, which).
MatD gaussian(int rows, int cols, double std, uint64_t seed, int layer, int which) {
  Rng rng(mixSeed(seed, static_cast<uint64_t>(layer), static_cast<uint64_t>(which)));
  MatD m(rows, cols);
  fillGaussian(m, std, rng);
  return m;
}

double initStd(InitScheme init, int fanIn, int fanOut) {
  switch (init) {
    case InitScheme::LeCun:
      return 1.0 / std::sqrt(static_cast<double>(fanIn));
    case InitScheme::Xavier:
      return std::sqrt(2.0 / (fanIn + fanOut));
    case InitScheme::Bert:
      return 0.02;
  }
  return 0.0;
}

/// Multi-head attention sub-block: concat_h(attend(X·Wq_h, X·Wk_h, X·Wv_h))·Wo  [n, d].
MatD attentionSublayer(const StackLayerWeights& w, int heads, const MatD& x, const AttentionFn& attend,
                       std::vector<MatD>* attention) {
  const Eigen::Index n = x.rows(), d = x.cols(), dh = d / heads;
  // One product per projection for all heads at once (small GEMMs are dominated by their overhead);
  // head h then reads columns h·d_head … of each.
  MatD q(n, d), k(n, d), v(n, d);
  q.noalias() = x * w.wq;  // [n, d]
  k.noalias() = x * w.wk;
  v.noalias() = x * w.wv;
  MatD concat(n, d);
  if (attention) attention->assign(heads, MatD());
  for (int h = 0; h < heads; ++h) {
    const Eigen::Index c0 = h * dh;
    concat.middleCols(c0, dh) = attend(q.middleCols(c0, dh), k.middleCols(c0, dh), v.middleCols(c0, dh),
                                       attention ? &(*attention)[h] : nullptr);
  }
  MatD out(n, d);
  out.noalias() = concat * w.wo;  // unify the heads: [n, d]·[d, d]
  return out;
}

/// MLP sub-block: GELU(X·W1 + b1)·W2 + b2, hidden width 4·d  [n, d].
MatD mlpSublayer(const StackLayerWeights& w, const MatD& x) {
  MatD hidden = affine(x, w.w1, w.b1);  // [n, 4d]
  geluTanhInPlace(hidden);
  return affine(hidden, w.w2, w.b2);
}

/// Empty when X is inside the safe range, else why not.
std::string outOfRange(const MatD& x) {
  if (!x.allFinite()) return "non-finite";
  const double mx = x.cwiseAbs().maxCoeff();
  if (mx > kStackOverflowLimit) return "overflow";
  if (mx < kStackUnderflowLimit) return "underflow";
  return {};
}

void checkShapes(int dModel, int heads, const MatD& x0) {
  if (heads < 1 || dModel < 1 || dModel % heads != 0)
    throw InputError("deep stack: d_model " + std::to_string(dModel) + " does not split into " + std::to_string(heads) +
                     " heads");
  if (x0.rows() < 1 || x0.cols() != dModel)
    throw InputError("deep stack: input is " + std::to_string(x0.rows()) + "x" + std::to_string(x0.cols()) +
                     ", expected n x " + std::to_string(dModel) + " with n >= 1");
}

}  // namespace

AttentionFn softmaxAttention(int dHead) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(dHead));
  return [scale](const MatD& q, const MatD& k, const MatD& v, MatD* weights) {
    // Row-major, so that each softmax row is contiguous and its exp vectorises.
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> a(q.rows(), k.rows());
    a.noalias() = (q * k.transpose()) * scale;  // scores = Q·Kᵀ/√d_head   [n, n]
    softmaxRowsInPlace(a);                      // A = softmax rows
    MatD out(q.rows(), v.cols());
    out.noalias() = a * v;  // A·V   [n, d_head]
    if (weights) *weights = a;
    return out;
  };
}

std::vector<std::string> stackAttentionVariants() { return {"softmax"}; }

AttentionFn makeStackAttention(const std::string& variant, int dHead, uint64_t) {
  if (variant == "softmax") return softmaxAttention(dHead);
  for (const char* coming : {"linear", "linear-elu", "linear-exp", "elu", "exp", "performer"})
    if (variant == coming)
      throw InputError("attention variant '" + variant +
                       "' is not available in the deep stack yet (accepted now: softmax)");
  throw InputError("unknown attention variant '" + variant + "' (accepted: softmax)");
}

StackLayerWeights makeLayerWeights(int dModel, InitScheme init, uint64_t seed, int l, double mlpGain) {
  const int d = dModel;
  const double sAttn = initStd(init, d, d), s1 = initStd(init, d, 4 * d), s2 = initStd(init, 4 * d, d);
  StackLayerWeights w;
  w.wq = gaussian(d, d, sAttn, seed, l, 1);
  w.wk = gaussian(d, d, sAttn, seed, l, 2);
  w.wv = gaussian(d, d, sAttn, seed, l, 3);
  w.wo = gaussian(d, d, sAttn, seed, l, 4);
  w.w1 = gaussian(d, 4 * d, s1, seed, l, 5);
  w.w2 = gaussian(4 * d, d, s2 * mlpGain, seed, l, 6);
  w.b1 = VecD::Zero(4 * d);
  w.b2 = VecD::Zero(d);
  w.ln1Gamma = w.ln2Gamma = VecD::Ones(d);
  w.ln1Beta = w.ln2Beta = VecD::Zero(d);
  return w;
}

StackWeights makeStackWeights(int dModel, int heads, int depth, InitScheme init, uint64_t seed) {
  StackWeights sw;
  sw.dModel = dModel;
  sw.heads = heads;
  sw.layers.reserve(depth);
  for (int l = 0; l < depth; ++l) sw.layers.push_back(makeLayerWeights(dModel, init, seed, l));
  return sw;
}

LayerWeightsFn randomLayerWeights(int dModel, InitScheme init, uint64_t seed, double mlpGain) {
  struct Latest {
    int layer = -1;
    StackLayerWeights weights;
  };
  auto latest = std::make_shared<Latest>();
  return [=](int layer) -> const StackLayerWeights& {
    if (latest->layer != layer) {
      latest->weights = makeLayerWeights(dModel, init, seed, layer, mlpGain);
      latest->layer = layer;
    }
    return latest->weights;
  };
}

LayerWeightsFn givenLayerWeights(const StackWeights& w) {
  return [&w](int layer) -> const StackLayerWeights& { return w.layers.at(layer); };
}

MatD randomStackInput(int tokens, int dModel, uint64_t seed) {
  return gaussian(tokens, dModel, 1.0, seed, -1, 0x78);  // "x"
}

MatD stackLayer(StackConfig c, const StackLayerWeights& w, int heads, const MatD& x, const AttentionFn& attend,
                std::vector<MatD>* attention) {
  const auto sa = [&](const MatD& in) { return attentionSublayer(w, heads, in, attend, attention); };
  const auto ln1 = [&](const MatD& in) { return layerNorm(in, w.ln1Gamma, w.ln1Beta, kLayerNormEps); };
  const auto ln2 = [&](const MatD& in) { return layerNorm(in, w.ln2Gamma, w.ln2Beta, kLayerNormEps); };
  switch (c) {
    case StackConfig::San:
      return sa(x);
    case StackConfig::SanSkip:
      return x + sa(x);
    case StackConfig::SanMlp:
      return mlpSublayer(w, sa(x));
    case StackConfig::SanSkipMlp: {
      const MatD h = x + sa(x);
      return h + mlpSublayer(w, h);
    }
    case StackConfig::PostLn: {
      const MatD h = ln1(x + sa(x));
      return ln2(h + mlpSublayer(w, h));
    }
    case StackConfig::PreLn: {
      const MatD h = x + sa(ln1(x));
      return h + mlpSublayer(w, ln2(h));
    }
    case StackConfig::SanLn:
      return ln1(sa(x));
  }
  return x;
}

StackRun runStack(StackConfig c, const StackWeights& w, int depth, const MatD& x0, const AttentionFn& attend,
                  const StackOptions& options, const RunControl& control) {
  if (depth < 0 || depth > static_cast<int>(w.layers.size()))
    throw InputError("deep stack: depth " + std::to_string(depth) + " but weights for " +
                     std::to_string(w.layers.size()) + " layers");
  return runStacks({c}, w.dModel, w.heads, depth, x0, givenLayerWeights(w), attend, options, control)[0];
}

std::vector<StackRun> runStacks(const std::vector<StackConfig>& configs, int dModel, int heads, int depth,
                                const MatD& x0, const LayerWeightsFn& weights, const AttentionFn& attend,
                                const StackOptions& options, const RunControl& control) {
  checkShapes(dModel, heads, x0);
  const auto keep = [&](int l) { return options.keepOnlyLayer < 0 || options.keepOnlyLayer == l; };
  const std::size_t count = configs.size();
  std::vector<StackRun> runs(count);
  std::vector<MatD> x(count, x0);
  std::vector<bool> alive(count, true);
  for (StackRun& run : runs) {
    run.residual.reserve(depth + 1);
    if (options.keepStates) run.states.resize(depth + 1);
    if (options.keepAttention) run.attention.resize(depth);
    if (const std::string why = outOfRange(x0); !why.empty()) {
      run.stoppedAt = 0;
      run.stopReason = why;
      continue;
    }
    run.residual.push_back(relativeResidual(x0, options.norm));
    if (options.keepStates && keep(0)) run.states[0] = x0;
  }
  if (runs.empty() || runs[0].stoppedAt == 0) return runs;
  for (int l = 1; l <= depth; ++l) {
    control.checkpoint(static_cast<double>(l - 1) / depth);
    const StackLayerWeights& w = weights(l - 1);
    for (std::size_t c = 0; c < count; ++c) {
      if (!alive[c]) continue;
      StackRun& run = runs[c];
      std::vector<MatD>* attention = options.keepAttention && keep(l) ? &run.attention[l - 1] : nullptr;
      MatD next = stackLayer(configs[c], w, heads, x[c], attend, attention);
      if (const std::string why = outOfRange(next); !why.empty()) {
        // Stop and say why: the curve ends at the last depth whose values were sound.
        run.stoppedAt = l;
        run.stopReason = why;
        if (options.keepStates) run.states.resize(l);
        if (options.keepAttention) run.attention.resize(l - 1);
        alive[c] = false;
        continue;
      }
      x[c] = std::move(next);
      run.residual.push_back(relativeResidual(x[c], options.norm));
      if (options.keepStates && keep(l)) run.states[l] = x[c];
    }
    if (std::none_of(alive.begin(), alive.end(), [](bool a) { return a; })) break;
  }
  return runs;
}

}  // namespace attnlab
