#include "core/train/tiny_net.h"

#include <cmath>

#include "core/model/blocks.h"
#include "core/train/tiny_layer_norm.h"

namespace attnlab {
namespace {

template <typename S>
using MatS = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
template <typename S>
using ColS = Eigen::Matrix<S, Eigen::Dynamic, 1>;

/// φ of the linear variants, elementwise: elu(x) + 1 (= x + 1 for x > 0, eˣ otherwise) or eˣ. Both > 0,
/// so every row of φ(Q)·φ(K)ᵀ has a positive sum.
template <typename S>
MatS<S> featureMap(const MatS<S>& x, TinyAttention a) {
  if (a == TinyAttention::LinearExp) return x.array().exp().matrix();
  return (x.array() > S(0)).select(x.array() + S(1), x.array().exp()).matrix();
}
/// φ'(x): 1 or eˣ for elu + 1; eˣ = φ(x) for exp.
template <typename S>
MatS<S> featureMapDerivative(const MatS<S>& x, const MatS<S>& fx, TinyAttention a) {
  if (a == TinyAttention::LinearExp) return fx;
  return (x.array() > S(0)).select(MatS<S>::Ones(x.rows(), x.cols()).array(), fx.array()).matrix();
}

/// GELU'(x) of the tanh form: 0.5·(1 + t) + 0.5·x·(1 − t²)·c·(1 + 3·0.044715·x²), t = tanh(c·(x + 0.044715·x³)).
template <typename S>
MatS<S> geluTanhDerivative(const MatS<S>& x) {
  const S c = static_cast<S>(0.7978845608028654), k = static_cast<S>(0.044715);
  const auto xa = x.array();
  const auto t = (c * (xa + k * xa.cube())).tanh();
  return (S(0.5) * (S(1) + t) + S(0.5) * xa * (S(1) - t.square()) * c * (S(1) + S(3) * k * xa.square())).matrix();
}

/// Row sums z_i = Σ_{j ≤ i} (φq·φkᵀ)_ij of the causal linear attention of one head of one sequence.
template <typename S, typename Q, typename K>
MatS<S> causalKernel(const Q& fq, const K& fk) {
  MatS<S> a = fq * fk.transpose();  // [T, T]
  a.template triangularView<Eigen::StrictlyUpper>().setZero();
  return a;
}

/// [Wq Wk Wv]  [d, 3d]: Q, K and V come from one product with the layer's input (one packing of it
/// instead of three), and their gradients from one product each way.
template <typename S>
MatS<S> stackedQkv(const TinyLayerParams<S>& w) {
  MatS<S> m(w.wq.rows(), 3 * w.wq.cols());
  m << w.wq, w.wk, w.wv;
  return m;
}

template <typename S>
void attentionForward(const TinyConfig& c, int batch, int tokens, TinyLayerCache<S>& L) {
  const int heads = c.heads, dh = c.dHead(), d = c.dModel;
  const S scale = static_cast<S>(1.0 / std::sqrt(static_cast<double>(dh)));
  const bool linear = c.attention != TinyAttention::Softmax;
  if (linear) L.fq = featureMap<S>(L.q(), c.attention), L.fk = featureMap<S>(L.k(), c.attention);
  L.attention.resize(static_cast<std::size_t>(batch) * heads);
  L.concat.resize(static_cast<Eigen::Index>(batch) * tokens, d);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const Eigen::Index r0 = static_cast<Eigen::Index>(b) * tokens, c0 = static_cast<Eigen::Index>(h) * dh;
      MatS<S>& a = L.attention[static_cast<std::size_t>(b) * heads + h];
      if (!linear) {
        a.noalias() = L.q().block(r0, c0, tokens, dh) * L.k().block(r0, c0, tokens, dh).transpose();
        a *= scale;
        applyCausalMask(a);
        softmaxRowsInPlace(a);
      } else {
        a = causalKernel<S>(L.fq.block(r0, c0, tokens, dh), L.fk.block(r0, c0, tokens, dh));
        const ColS<S> z = a.rowwise().sum().cwiseMax(std::numeric_limits<S>::min());
        a = (a.array().colwise() / z.array()).matrix();
      }
      L.concat.block(r0, c0, tokens, dh).noalias() = a * L.v().block(r0, c0, tokens, dh);
    }
}

template <typename S>
void layerForward(const TinyConfig& c, const TinyLayerParams<S>& w, int batch, int tokens, TinyLayerCache<S>& L,
                  int layer, const TinyHooks<S>* hooks) {
  L.a = c.layerNorm ? tinyLayerNormForward(L.xIn, w.ln1Gamma, w.ln1Beta, L.ln1) : L.xIn;
  L.qkv.noalias() = L.a * stackedQkv(w);
  if (hooks && hooks->site) hooks->site(TinySite::Qkv, layer, L.qkv);
  attentionForward(c, batch, tokens, L);
  const int dh = c.dHead();
  const bool scoresHook = hooks && hooks->scores && hooks->wantsScores && hooks->wantsScores(layer) &&
                          c.attention == TinyAttention::Softmax;
  if (scoresHook) {  // the scores again, as attentionForward makes them, for the hook; then the softmax of its own
    const S scale = static_cast<S>(1.0 / std::sqrt(static_cast<double>(dh)));
    std::vector<MatS<S>> scores(L.attention.size());
    for (int b = 0; b < batch; ++b)
      for (int h = 0; h < c.heads; ++h) {
        const Eigen::Index r0 = static_cast<Eigen::Index>(b) * tokens, c0 = static_cast<Eigen::Index>(h) * dh;
        MatS<S>& a = scores[static_cast<std::size_t>(b) * c.heads + h];
        a.noalias() = L.q().block(r0, c0, tokens, dh) * L.k().block(r0, c0, tokens, dh).transpose();
        a *= scale;
        applyCausalMask(a);
      }
    hooks->scores(layer, scores);
    for (std::size_t i = 0; i < scores.size(); ++i) {
      L.attention[i] = std::move(scores[i]);
      softmaxRowsInPlace(L.attention[i]);
    }
  }
  if (hooks && hooks->attention) hooks->attention(layer, L.attention);
  if (scoresHook || (hooks && hooks->attention)) {
    for (int b = 0; b < batch; ++b)
      for (int h = 0; h < c.heads; ++h) {
        const Eigen::Index r0 = static_cast<Eigen::Index>(b) * tokens, c0 = static_cast<Eigen::Index>(h) * dh;
        L.concat.block(r0, c0, tokens, dh).noalias() =
            L.attention[static_cast<std::size_t>(b) * c.heads + h] * L.v().block(r0, c0, tokens, dh);
      }
  }
  if (hooks && hooks->concat) hooks->concat(layer, L.concat);
  L.attnOut.noalias() = L.concat * w.wo;
  if (hooks && hooks->site) hooks->site(TinySite::AttnOut, layer, L.attnOut);
  L.xOut = L.xIn + L.attnOut;
  if (hooks && hooks->site) hooks->site(TinySite::Mid, layer, L.xOut);
  if (!c.mlp) return;
  L.mlpIn = c.layerNorm ? tinyLayerNormForward(L.xOut, w.ln2Gamma, w.ln2Beta, L.ln2) : L.xOut;
  L.hidden = affine(L.mlpIn, w.w1, w.b1.col(0));
  L.act = L.hidden;
  if (c.relu)
    L.act = L.act.cwiseMax(S(0));
  else
    geluTanhInPlace(L.act);
  L.mlpOut = affine(L.act, w.w2, w.b2.col(0));
  if (hooks && hooks->site) hooks->site(TinySite::MlpOut, layer, L.mlpOut);
  L.xOut += L.mlpOut;
}

/// dx: dL/d(layer output) in, dL/d(layer input) out.
template <typename S>
void layerBackward(const TinyConfig& c, const TinyLayerParams<S>& w, const TinyLayerCache<S>& L, int batch, int tokens,
                   MatS<S>& dx, TinyLayerParams<S>& g) {
  if (c.mlp) {  // x_out = x_mid + W₂ᵀ-side of the MLP
    g.b2.col(0) += dx.colwise().sum().transpose();
    g.w2.noalias() += L.act.transpose() * dx;
    MatS<S> dHidden = dx * w.w2.transpose();  // [BT, 4d]
    if (c.relu)
      dHidden = (L.hidden.array() > S(0)).select(dHidden.array(), S(0)).matrix();
    else
      dHidden = dHidden.cwiseProduct(geluTanhDerivative(L.hidden));
    g.b1.col(0) += dHidden.colwise().sum().transpose();
    g.w1.noalias() += L.mlpIn.transpose() * dHidden;
    MatS<S> dMlpIn = dHidden * w.w1.transpose();
    dx += c.layerNorm ? tinyLayerNormBackward(dMlpIn, w.ln2Gamma, L.ln2, g.ln2Gamma, g.ln2Beta) : dMlpIn;
  }
  // x_mid = x_in + concat·Wo
  g.wo.noalias() += L.concat.transpose() * dx;
  const MatS<S> dConcat = dx * w.wo.transpose();  // [BT, d]
  const int heads = c.heads, dh = c.dHead();
  const S scale = static_cast<S>(1.0 / std::sqrt(static_cast<double>(dh)));
  const bool linear = c.attention != TinyAttention::Softmax;
  const Eigen::Index d = c.dModel;
  MatS<S> dqkv = MatS<S>::Zero(L.qkv.rows(), L.qkv.cols());  // dQ | dK | dV (dφq, dφk for the linear variants)
  auto dq = dqkv.leftCols(d);
  auto dk = dqkv.middleCols(d, d);
  auto dv = dqkv.rightCols(d);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const Eigen::Index r0 = static_cast<Eigen::Index>(b) * tokens, c0 = static_cast<Eigen::Index>(h) * dh;
      const MatS<S>& a = L.attention[static_cast<std::size_t>(b) * heads + h];
      const auto dOut = dConcat.block(r0, c0, tokens, dh);
      const MatS<S> dA = dOut * L.v().block(r0, c0, tokens, dh).transpose();  // [T, T]
      dv.block(r0, c0, tokens, dh).noalias() += a.transpose() * dOut;
      const ColS<S> rowDot = (dA.array() * a.array()).rowwise().sum();  // Σ_k dA_ik·A_ik
      if (!linear) {
        // softmax: dS = A∘(dA − rowDot); S = scale·Q·Kᵀ
        const MatS<S> dS = (a.array() * (dA.colwise() - rowDot).array()).matrix() * scale;
        dq.block(r0, c0, tokens, dh).noalias() += dS * L.k().block(r0, c0, tokens, dh);
        dk.block(r0, c0, tokens, dh).noalias() += dS.transpose() * L.q().block(r0, c0, tokens, dh);
      } else {
        // A = K/z with K = causal φq·φkᵀ: dK_ij = (dA_ij − rowDot_i)/z_i for j ≤ i
        const auto fq = L.fq.block(r0, c0, tokens, dh);
        const auto fk = L.fk.block(r0, c0, tokens, dh);
        const ColS<S> z = causalKernel<S>(fq, fk).rowwise().sum().cwiseMax(std::numeric_limits<S>::min());
        MatS<S> dK = ((dA.colwise() - rowDot).array().colwise() / z.array()).matrix();
        dK.template triangularView<Eigen::StrictlyUpper>().setZero();
        dq.block(r0, c0, tokens, dh).noalias() += dK * fk;
        dk.block(r0, c0, tokens, dh).noalias() += dK.transpose() * fq;
      }
    }
  if (linear) {
    dq.array() *= featureMapDerivative<S>(L.q(), L.fq, c.attention).array();
    dk.array() *= featureMapDerivative<S>(L.k(), L.fk, c.attention).array();
  }
  const MatS<S> gqkv = L.a.transpose() * dqkv;  // [d, 3d]
  g.wq += gqkv.leftCols(d);
  g.wk += gqkv.middleCols(d, d);
  g.wv += gqkv.rightCols(d);
  const MatS<S> dA = dqkv * stackedQkv(w).transpose();
  dx += c.layerNorm ? tinyLayerNormBackward(dA, w.ln1Gamma, L.ln1, g.ln1Gamma, g.ln1Beta) : dA;
}

}  // namespace

template <typename S>
void tinyForward(const TinyConfig& c, const TinyParams<S>& p, const int* ids, int batch, int tokens,
                 TinyForward<S>& out, const int* targets, const TinyHooks<S>* hooks) {
  out.batch = batch, out.tokens = tokens;
  const Eigen::Index rows = static_cast<Eigen::Index>(batch) * tokens;
  out.x0.resize(rows, c.dModel);
  if (hooks && hooks->site) {  // the token and position rows apart, each offered to its hook
    MatS<S> positions(rows, c.dModel);
    for (Eigen::Index r = 0; r < rows; ++r) {
      out.x0.row(r) = p.tokEmb.row(ids[r]);
      positions.row(r) = p.posEmb.row(r % tokens);
    }
    hooks->site(TinySite::Embed, -1, out.x0);
    hooks->site(TinySite::PosEmbed, -1, positions);
    out.x0 += positions;
  } else {
    for (Eigen::Index r = 0; r < rows; ++r) out.x0.row(r) = p.tokEmb.row(ids[r]) + p.posEmb.row(r % tokens);
  }
  out.layers.resize(static_cast<std::size_t>(c.layers));
  const MatS<S>* x = &out.x0;
  for (int l = 0; l < c.layers; ++l) {
    TinyLayerCache<S>& L = out.layers[static_cast<std::size_t>(l)];
    L.xIn = *x;
    if (hooks && hooks->residual) hooks->residual(l, L.xIn);
    layerForward(c, p.layers[static_cast<std::size_t>(l)], batch, tokens, L, l, hooks);
    x = &L.xOut;
  }
  if (hooks && hooks->residual && !out.layers.empty()) {
    hooks->residual(c.layers, out.layers.back().xOut);
    x = &out.layers.back().xOut;
  }
  out.final = c.layerNorm ? tinyLayerNormForward(*x, p.lnfGamma, p.lnfBeta, out.lnf) : *x;
  out.logitRows.clear();
  for (Eigen::Index r = 0; r < rows; ++r)
    if (!targets || targets[r] >= 0) out.logitRows.push_back(static_cast<int>(r));
  if (static_cast<Eigen::Index>(out.logitRows.size()) == rows) {
    out.finalRows = out.final;
  } else {
    out.finalRows.resize(static_cast<Eigen::Index>(out.logitRows.size()), c.dModel);
    for (std::size_t i = 0; i < out.logitRows.size(); ++i)
      out.finalRows.row(static_cast<Eigen::Index>(i)) = out.final.row(out.logitRows[i]);
  }
  out.logits.noalias() = out.finalRows * p.unembed;
}

template <typename S>
double tinyCrossEntropy(const TinyForward<S>& f, const int* targets, double normalizer, MatS<S>& dLogits) {
  const Eigen::Index rows = f.logits.rows();
  const ColS<S> mx = f.logits.rowwise().maxCoeff();
  // In place, in two statements: Eigen evaluates exp of the broadcast difference one scalar expf at a
  // time (a twentieth of a training step), but vectorises exp of a plain matrix.
  dLogits = f.logits;
  dLogits.colwise() -= mx;
  dLogits = dLogits.array().exp().matrix();
  const ColS<S> sum = dLogits.rowwise().sum();
  dLogits = (dLogits.array().colwise() / sum.array()).matrix();  // probabilities
  double loss = 0;
  long long count = 0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    const int t = targets[f.logitRows[static_cast<std::size_t>(r)]];
    if (t < 0) {
      dLogits.row(r).setZero();
      continue;
    }
    // −log p_t = log Σ exp(l − max) − (l_t − max), without forming log(p) of a tiny p
    loss += std::log(static_cast<double>(sum(r))) - static_cast<double>(f.logits(r, t) - mx(r));
    dLogits(r, t) -= S(1);
    ++count;
  }
  const double norm = normalizer > 0 ? normalizer : static_cast<double>(std::max<long long>(count, 1));
  dLogits *= static_cast<S>(1.0 / norm);
  return loss / norm;
}

template <typename S>
void tinyBackward(const TinyConfig& c, const TinyParams<S>& p, const TinyForward<S>& f, const int* ids,
                  const MatS<S>& dLogits, TinyParams<S>& g) {
  g.unembed.noalias() += f.finalRows.transpose() * dLogits;
  MatS<S> dx;  // [BT, d]
  if (f.logitRows.size() == static_cast<std::size_t>(f.final.rows())) {
    dx.noalias() = dLogits * p.unembed.transpose();
  } else {                                                  // rows without logits get no gradient from the loss
    const MatS<S> dRows = dLogits * p.unembed.transpose();  // [R, d]
    dx.setZero(f.final.rows(), f.final.cols());
    for (std::size_t i = 0; i < f.logitRows.size(); ++i)
      dx.row(f.logitRows[i]) = dRows.row(static_cast<Eigen::Index>(i));
  }
  if (c.layerNorm) dx = tinyLayerNormBackward(dx, p.lnfGamma, f.lnf, g.lnfGamma, g.lnfBeta);
  for (int l = c.layers - 1; l >= 0; --l)
    layerBackward(c, p.layers[static_cast<std::size_t>(l)], f.layers[static_cast<std::size_t>(l)], f.batch, f.tokens,
                  dx, g.layers[static_cast<std::size_t>(l)]);
  for (Eigen::Index r = 0; r < dx.rows(); ++r) {
    g.tokEmb.row(ids[r]) += dx.row(r);
    g.posEmb.row(r % f.tokens) += dx.row(r);
  }
}

#define ATTNLAB_TINY_NET(S)                                                                                    \
  template void tinyForward<S>(const TinyConfig&, const TinyParams<S>&, const int*, int, int, TinyForward<S>&, \
                               const int*, const TinyHooks<S>*);                                               \
  template double tinyCrossEntropy<S>(const TinyForward<S>&, const int*, double, MatS<S>&);                    \
  template void tinyBackward<S>(const TinyConfig&, const TinyParams<S>&, const TinyForward<S>&, const int*,    \
                                const MatS<S>&, TinyParams<S>&);
ATTNLAB_TINY_NET(float)
ATTNLAB_TINY_NET(double)
#undef ATTNLAB_TINY_NET

}  // namespace attnlab
