#include "core/train/tiny_encdec_net.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/model/blocks.h"

namespace attnlab {
namespace {

template <typename S>
using MatS = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
template <typename S>
using ColS = Eigen::Matrix<S, Eigen::Dynamic, 1>;

/// x·W + b  [rows, out]
template <typename S>
MatS<S> linear(const MatS<S>& x, const MatS<S>& w, const MatS<S>& b) {
  MatS<S> y;
  y.noalias() = x * w;
  y.rowwise() += b.col(0).transpose();
  return y;
}

/// Adds dW = xᵀ·dy, db = Σ_rows dy; returns dx = dy·Wᵀ.
template <typename S>
MatS<S> linearBackward(const MatS<S>& x, const MatS<S>& w, const MatS<S>& dy, MatS<S>& dw, MatS<S>& db) {
  dw.noalias() += x.transpose() * dy;
  db.col(0) += dy.colwise().sum().transpose();
  MatS<S> dx;
  dx.noalias() = dy * w.transpose();
  return dx;
}

/// Multi-head attention of queries from xq [B·n_q, d] over keys and values from xkv [B·n_k, d]; returns the output
/// projection's result [B·n_q, d].
template <typename S>
MatS<S> attentionForward(const TinyEncDecConfig& c, const TinyEncDecAttentionParams<S>& w, const MatS<S>& xq,
                         const MatS<S>& xkv, int batch, int nq, int nk, bool causal, TinyEncDecAttentionCache<S>& a) {
  const int heads = c.heads, dh = c.dHead();
  const S scale = static_cast<S>(1.0 / std::sqrt(static_cast<double>(dh)));
  a.q = linear(xq, w.wq, w.bq), a.k = linear(xkv, w.wk, w.bk), a.v = linear(xkv, w.wv, w.bv);
  a.attention.resize(static_cast<std::size_t>(batch) * heads);
  a.concat.resize(xq.rows(), c.dModel);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const Eigen::Index rq = static_cast<Eigen::Index>(b) * nq, rk = static_cast<Eigen::Index>(b) * nk;
      const Eigen::Index c0 = static_cast<Eigen::Index>(h) * dh;
      MatS<S>& m = a.attention[static_cast<std::size_t>(b) * heads + h];
      m.noalias() = a.q.block(rq, c0, nq, dh) * a.k.block(rk, c0, nk, dh).transpose();
      m *= scale;
      if (causal) applyCausalMask(m);
      softmaxRowsInPlace(m);
      a.concat.block(rq, c0, nq, dh).noalias() = m * a.v.block(rk, c0, nk, dh);
    }
  return linear(a.concat, w.wo, w.bo);
}

/// dOut: dL/d(attention output) [B·n_q, d]. Adds the weights' gradients; returns dL/dxq in dxq and adds dL/dxkv
/// into dxkv (for self-attention both are the same stream).
template <typename S>
void attentionBackward(const TinyEncDecConfig& c, const TinyEncDecAttentionParams<S>& w, const MatS<S>& xq,
                       const MatS<S>& xkv, int batch, int nq, int nk, const TinyEncDecAttentionCache<S>& a,
                       const MatS<S>& dOut, TinyEncDecAttentionParams<S>& g, MatS<S>& dxq, MatS<S>& dxkv) {
  const int heads = c.heads, dh = c.dHead();
  const S scale = static_cast<S>(1.0 / std::sqrt(static_cast<double>(dh)));
  const MatS<S> dConcat = linearBackward(a.concat, w.wo, dOut, g.wo, g.bo);  // [B·n_q, d]
  MatS<S> dq = MatS<S>::Zero(a.q.rows(), a.q.cols()), dk = MatS<S>::Zero(a.k.rows(), a.k.cols());
  MatS<S> dv = MatS<S>::Zero(a.v.rows(), a.v.cols());
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const Eigen::Index rq = static_cast<Eigen::Index>(b) * nq, rk = static_cast<Eigen::Index>(b) * nk;
      const Eigen::Index c0 = static_cast<Eigen::Index>(h) * dh;
      const MatS<S>& m = a.attention[static_cast<std::size_t>(b) * heads + h];  // [n_q, n_k]
      const auto dO = dConcat.block(rq, c0, nq, dh);
      const MatS<S> dA = dO * a.v.block(rk, c0, nk, dh).transpose();
      dv.block(rk, c0, nk, dh).noalias() += m.transpose() * dO;
      const ColS<S> rowDot = (dA.array() * m.array()).rowwise().sum();
      // softmax: dS = A∘(dA − rowDot); S = scale·Q·Kᵀ (masked entries have A = 0, so no gradient)
      const MatS<S> dS = (m.array() * (dA.colwise() - rowDot).array()).matrix() * scale;
      dq.block(rq, c0, nq, dh).noalias() += dS * a.k.block(rk, c0, nk, dh);
      dk.block(rk, c0, nk, dh).noalias() += dS.transpose() * a.q.block(rq, c0, nq, dh);
    }
  dxq = linearBackward(xq, w.wq, dq, g.wq, g.bq);
  dxkv += linearBackward(xkv, w.wk, dk, g.wk, g.bk);
  dxkv += linearBackward(xkv, w.wv, dv, g.wv, g.bv);
}

/// relu(x·W₁ + b₁)·W₂ + b₂, keeping the hidden layer.
template <typename S>
MatS<S> feedForward(const TinyEncDecLayerParams<S>& w, const MatS<S>& x, TinyEncDecLayerCache<S>& L) {
  L.hidden = linear(x, w.w1, w.b1);
  L.act = L.hidden.cwiseMax(S(0));
  return linear(L.act, w.w2, w.b2);
}

template <typename S>
MatS<S> feedForwardBackward(const TinyEncDecLayerParams<S>& w, const MatS<S>& x, const TinyEncDecLayerCache<S>& L,
                            const MatS<S>& dy, TinyEncDecLayerParams<S>& g) {
  MatS<S> dAct = linearBackward(L.act, w.w2, dy, g.w2, g.b2);
  dAct = (L.hidden.array() > S(0)).select(dAct.array(), S(0)).matrix();
  return linearBackward(x, w.w1, dAct, g.w1, g.b1);
}

/// E[id] + P[pos + 2], then layernorm_embedding  [B·n, d]
template <typename S>
MatS<S> embed(const TinyEncDecParams<S>& p, const MatS<S>& pos, const MatS<S>& gamma, const MatS<S>& beta,
              const int* ids, int batch, int n, TinyLayerNormCache<S>& norm) {
  MatS<S> x(static_cast<Eigen::Index>(batch) * n, p.shared.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) x.row(r) = p.shared.row(ids[r]) + pos.row(r % n + 2);
  return tinyLayerNormForward(x, gamma, beta, norm);
}

}  // namespace

void validate(const TinyEncDecConfig& c) {
  auto range = [](int v, int lo, int hi, const char* what) {
    if (v < lo || v > hi)
      throw InputError(std::string(what) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                       " (got " + std::to_string(v) + ")");
  };
  range(c.symbols, 2, 200, "the number of task symbols");
  range(c.maxLength, 2, 64, "the longest source");
  range(c.encoderLayers, 1, 4, "encoder layers");
  range(c.decoderLayers, 1, 4, "decoder layers");
  range(c.heads, 1, 8, "heads");
  range(c.dModel, 4, 128, "the model width");
  range(c.ffn, 4, 512, "the feed-forward width");
  if (c.dModel % c.heads != 0)
    throw InputError("the model width (" + std::to_string(c.dModel) + ") must be a multiple of the heads (" +
                     std::to_string(c.heads) + ")");
}

TinyEncDecParams<float> initTinyEncDecParams(const TinyEncDecConfig& c) {
  validate(c);
  using M = Eigen::MatrixXf;
  const int d = c.dModel, positions = c.maxPositions() + 2;
  Rng rng(mixSeed(c.seed, 0xE4CDEC));
  // Column by column, in forEach's order: the draws (and so every saved model) depend on it.
  auto normal = [&](Eigen::Index rows, Eigen::Index cols, double fanIn) {
    M m(rows, cols);
    const double s = 1.0 / std::sqrt(fanIn);
    for (Eigen::Index j = 0; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = static_cast<float>(rng.normal() * s);
    return m;
  };
  auto attention = [&]() {
    TinyEncDecAttentionParams<float> a;
    a.wq = normal(d, d, d), a.wk = normal(d, d, d), a.wv = normal(d, d, d), a.wo = normal(d, d, d);
    a.bq = a.bk = a.bv = a.bo = M::Zero(d, 1);
    return a;
  };
  auto layer = [&](bool decoder) {
    TinyEncDecLayerParams<float> L;
    L.self = attention();
    L.selfNormGamma = M::Ones(d, 1), L.selfNormBeta = M::Zero(d, 1);
    if (decoder) {
      L.cross = attention();
      L.crossNormGamma = M::Ones(d, 1), L.crossNormBeta = M::Zero(d, 1);
    }
    L.w1 = normal(d, c.ffn, d), L.b1 = M::Zero(c.ffn, 1);
    L.w2 = normal(c.ffn, d, c.ffn), L.b2 = M::Zero(d, 1);
    L.finalNormGamma = M::Ones(d, 1), L.finalNormBeta = M::Zero(d, 1);
    return L;
  };
  TinyEncDecParams<float> p;
  p.shared = normal(c.vocab(), d, d);
  p.encPos = normal(positions, d, d), p.decPos = normal(positions, d, d);
  p.encEmbNormGamma = p.decEmbNormGamma = M::Ones(d, 1);
  p.encEmbNormBeta = p.decEmbNormBeta = M::Zero(d, 1);
  for (int l = 0; l < c.encoderLayers; ++l) p.encoder.push_back(layer(false));
  for (int l = 0; l < c.decoderLayers; ++l) p.decoder.push_back(layer(true));
  return p;
}

template <typename S>
void tinyEncDecForward(const TinyEncDecConfig& c, const TinyEncDecParams<S>& p, const int* source, const int* target,
                       int batch, int ns, int nt, TinyEncDecForward<S>& out) {
  out.batch = batch, out.sourceTokens = ns, out.targetTokens = nt;
  out.encX0 = embed(p, p.encPos, p.encEmbNormGamma, p.encEmbNormBeta, source, batch, ns, out.encEmbNorm);
  out.encoder.resize(p.encoder.size());
  const MatS<S>* x = &out.encX0;
  for (std::size_t l = 0; l < p.encoder.size(); ++l) {
    const TinyEncDecLayerParams<S>& w = p.encoder[l];
    TinyEncDecLayerCache<S>& L = out.encoder[l];
    L.xIn = *x;
    const MatS<S> h1 = L.xIn + attentionForward(c, w.self, L.xIn, L.xIn, batch, ns, ns, false, L.self);
    L.afterSelf = tinyLayerNormForward(h1, w.selfNormGamma, w.selfNormBeta, L.selfNorm);
    const MatS<S> h2 = L.afterSelf + feedForward(w, L.afterSelf, L);
    L.xOut = tinyLayerNormForward(h2, w.finalNormGamma, w.finalNormBeta, L.finalNorm);
    x = &L.xOut;
  }
  out.encOut = *x;
  out.decX0 = embed(p, p.decPos, p.decEmbNormGamma, p.decEmbNormBeta, target, batch, nt, out.decEmbNorm);
  out.decoder.resize(p.decoder.size());
  x = &out.decX0;
  for (std::size_t l = 0; l < p.decoder.size(); ++l) {
    const TinyEncDecLayerParams<S>& w = p.decoder[l];
    TinyEncDecLayerCache<S>& L = out.decoder[l];
    L.xIn = *x;
    const MatS<S> h1 = L.xIn + attentionForward(c, w.self, L.xIn, L.xIn, batch, nt, nt, true, L.self);
    L.afterSelf = tinyLayerNormForward(h1, w.selfNormGamma, w.selfNormBeta, L.selfNorm);
    const MatS<S> h2 =
        L.afterSelf + attentionForward(c, w.cross, L.afterSelf, out.encOut, batch, nt, ns, false, L.cross);
    L.afterCross = tinyLayerNormForward(h2, w.crossNormGamma, w.crossNormBeta, L.crossNorm);
    const MatS<S> h3 = L.afterCross + feedForward(w, L.afterCross, L);
    L.xOut = tinyLayerNormForward(h3, w.finalNormGamma, w.finalNormBeta, L.finalNorm);
    x = &L.xOut;
  }
  out.decOut = *x;
  out.logits.noalias() = out.decOut * p.shared.transpose();
}

template <typename S>
double tinyEncDecCrossEntropy(const TinyEncDecForward<S>& f, const int* labels, double normalizer, MatS<S>& dLogits) {
  const Eigen::Index rows = f.logits.rows();
  const ColS<S> mx = f.logits.rowwise().maxCoeff();
  dLogits = f.logits;
  dLogits.colwise() -= mx;
  dLogits = dLogits.array().exp().matrix();
  const ColS<S> sum = dLogits.rowwise().sum();
  dLogits = (dLogits.array().colwise() / sum.array()).matrix();  // probabilities
  double loss = 0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    loss += std::log(static_cast<double>(sum(r))) - static_cast<double>(f.logits(r, labels[r]) - mx(r));
    dLogits(r, labels[r]) -= S(1);
  }
  const double norm = normalizer > 0 ? normalizer : static_cast<double>(std::max<Eigen::Index>(rows, 1));
  dLogits *= static_cast<S>(1.0 / norm);
  return loss / norm;
}

template <typename S>
void tinyEncDecBackward(const TinyEncDecConfig& c, const TinyEncDecParams<S>& p, const TinyEncDecForward<S>& f,
                        const int* source, const int* target, const MatS<S>& dLogits, TinyEncDecParams<S>& g) {
  const int B = f.batch, ns = f.sourceTokens, nt = f.targetTokens;
  g.shared.noalias() += dLogits.transpose() * f.decOut;
  MatS<S> dy = dLogits * p.shared;                                 // [B·n_t, d]
  MatS<S> dEnc = MatS<S>::Zero(f.encOut.rows(), f.encOut.cols());  // from every decoder layer's cross-attention
  for (std::size_t l = p.decoder.size(); l-- > 0;) {
    const TinyEncDecLayerParams<S>& w = p.decoder[l];
    const TinyEncDecLayerCache<S>& L = f.decoder[l];
    TinyEncDecLayerParams<S>& gl = g.decoder[l];
    MatS<S> dh = tinyLayerNormBackward(dy, w.finalNormGamma, L.finalNorm, gl.finalNormGamma, gl.finalNormBeta);
    MatS<S> dx = dh + feedForwardBackward(w, L.afterCross, L, dh, gl);  // d afterCross
    dh = tinyLayerNormBackward(dx, w.crossNormGamma, L.crossNorm, gl.crossNormGamma, gl.crossNormBeta);
    MatS<S> dq;
    attentionBackward(c, w.cross, L.afterSelf, f.encOut, B, nt, ns, L.cross, dh, gl.cross, dq, dEnc);
    dx = dh + dq;  // d afterSelf
    dh = tinyLayerNormBackward(dx, w.selfNormGamma, L.selfNorm, gl.selfNormGamma, gl.selfNormBeta);
    dy = dh;
    attentionBackward(c, w.self, L.xIn, L.xIn, B, nt, nt, L.self, dh, gl.self, dq, dy);
    dy += dq;  // d xIn
  }
  dy = tinyLayerNormBackward(dy, p.decEmbNormGamma, f.decEmbNorm, g.decEmbNormGamma, g.decEmbNormBeta);
  for (Eigen::Index r = 0; r < dy.rows(); ++r) {
    g.shared.row(target[r]) += dy.row(r);
    g.decPos.row(r % nt + 2) += dy.row(r);
  }
  MatS<S>& dx = dEnc;
  for (std::size_t l = p.encoder.size(); l-- > 0;) {
    const TinyEncDecLayerParams<S>& w = p.encoder[l];
    const TinyEncDecLayerCache<S>& L = f.encoder[l];
    TinyEncDecLayerParams<S>& gl = g.encoder[l];
    MatS<S> dh = tinyLayerNormBackward(dx, w.finalNormGamma, L.finalNorm, gl.finalNormGamma, gl.finalNormBeta);
    MatS<S> da = dh + feedForwardBackward(w, L.afterSelf, L, dh, gl);
    dh = tinyLayerNormBackward(da, w.selfNormGamma, L.selfNorm, gl.selfNormGamma, gl.selfNormBeta);
    dx = dh;
    MatS<S> dq;
    attentionBackward(c, w.self, L.xIn, L.xIn, B, ns, ns, L.self, dh, gl.self, dq, dx);
    dx += dq;
  }
  dx = tinyLayerNormBackward(dx, p.encEmbNormGamma, f.encEmbNorm, g.encEmbNormGamma, g.encEmbNormBeta);
  for (Eigen::Index r = 0; r < dx.rows(); ++r) {
    g.shared.row(source[r]) += dx.row(r);
    g.encPos.row(r % ns + 2) += dx.row(r);
  }
}

#define ATTNLAB_TINY_ENCDEC_NET(S)                                                                                     \
  template void tinyEncDecForward<S>(const TinyEncDecConfig&, const TinyEncDecParams<S>&, const int*, const int*, int, \
                                     int, int, TinyEncDecForward<S>&);                                                 \
  template double tinyEncDecCrossEntropy<S>(const TinyEncDecForward<S>&, const int*, double, MatS<S>&);                \
  template void tinyEncDecBackward<S>(const TinyEncDecConfig&, const TinyEncDecParams<S>&,                             \
                                      const TinyEncDecForward<S>&, const int*, const int*, const MatS<S>&,             \
                                      TinyEncDecParams<S>&);
ATTNLAB_TINY_ENCDEC_NET(float)
ATTNLAB_TINY_ENCDEC_NET(double)
#undef ATTNLAB_TINY_ENCDEC_NET

}  // namespace attnlab
