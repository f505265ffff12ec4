#pragma once
// The weights of the tiny transformer (tiny_config.h), in the scalar type S: float for training and the
// views, double for the finite-difference checks of the backward pass. The same struct holds gradients
// and Adam's moments. Vectors are stored as one-column matrices so every tensor has one type.
// Weights are [in, out] so a layer reads x·W. Tensors of absent parts (MLP off, LayerNorm off) are empty.
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/train/tiny_config.h"

namespace attnlab {

template <typename S>
struct TinyLayerParams {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  M ln1Gamma, ln1Beta;  ///< [d, 1]
  M wq, wk, wv, wo;     ///< [d, d]; head h uses columns h·d_head … (h+1)·d_head − 1
  M ln2Gamma, ln2Beta;  ///< [d, 1]  (MLP and LayerNorm on)
  M w1, b1;             ///< [d, 4d], [4d, 1]
  M w2, b2;             ///< [4d, d], [d, 1]
};

template <typename S>
struct TinyParams {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  M tokEmb;  ///< [V, d]
  M posEmb;  ///< [T, d]
  std::vector<TinyLayerParams<S>> layers;
  M lnfGamma, lnfBeta;  ///< [d, 1]
  M unembed;            ///< [d, V]

  /// Calls f(name, tensor) for every present tensor, in a fixed order (the safetensors names).
  template <typename F>
  void forEach(F&& f) {
    visit(*this, f);
  }
  template <typename F>
  void forEach(F&& f) const {
    visit(*this, f);
  }

  /// The same shapes, all zero (gradients, Adam moments).
  TinyParams zerosLike() const {
    TinyParams z = *this;
    z.forEach([](const std::string&, M& t) { t.setZero(); });
    return z;
  }
  long long parameterCount() const {
    long long n = 0;
    forEach([&](const std::string&, const M& t) { n += t.size(); });
    return n;
  }
  template <typename T>
  TinyParams<T> cast() const {
    TinyParams<T> out;
    out.layers.resize(layers.size());
    auto c = [](const M& m) { return m.template cast<T>().eval(); };
    out.tokEmb = c(tokEmb), out.posEmb = c(posEmb), out.lnfGamma = c(lnfGamma), out.lnfBeta = c(lnfBeta);
    out.unembed = c(unembed);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const TinyLayerParams<S>& a = layers[l];
      TinyLayerParams<T>& b = out.layers[l];
      b.ln1Gamma = c(a.ln1Gamma), b.ln1Beta = c(a.ln1Beta), b.wq = c(a.wq), b.wk = c(a.wk), b.wv = c(a.wv);
      b.wo = c(a.wo), b.ln2Gamma = c(a.ln2Gamma), b.ln2Beta = c(a.ln2Beta), b.w1 = c(a.w1), b.b1 = c(a.b1);
      b.w2 = c(a.w2), b.b2 = c(a.b2);
    }
    return out;
  }

 private:
  template <typename P, typename F>
  static void visit(P& p, F& f) {
    auto maybe = [&](const std::string& name, auto& t) {
      if (t.size() > 0) f(name, t);
    };
    maybe("tok_emb", p.tokEmb);
    maybe("pos_emb", p.posEmb);
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
      auto& L = p.layers[l];
      const std::string q = "layers." + std::to_string(l) + ".";
      maybe(q + "ln1.weight", L.ln1Gamma);
      maybe(q + "ln1.bias", L.ln1Beta);
      maybe(q + "attn.wq", L.wq);
      maybe(q + "attn.wk", L.wk);
      maybe(q + "attn.wv", L.wv);
      maybe(q + "attn.wo", L.wo);
      maybe(q + "ln2.weight", L.ln2Gamma);
      maybe(q + "ln2.bias", L.ln2Beta);
      maybe(q + "mlp.w1", L.w1);
      maybe(q + "mlp.b1", L.b1);
      maybe(q + "mlp.w2", L.w2);
      maybe(q + "mlp.b2", L.b2);
    }
    maybe("ln_f.weight", p.lnfGamma);
    maybe("ln_f.bias", p.lnfBeta);
    maybe("unembed", p.unembed);
  }
};

/// Every tensor at the shape the config implies: LayerNorm γ = 1, everything else 0 (loading fills it).
TinyParams<float> tinyParamsLayout(const TinyConfig& c);
/// Draws initial weights from the config's seed: embeddings N(0, 1), projections N(0, 1/fan_in),
/// LayerNorm γ = 1, β = 0, biases 0. Deterministic for a seed.
TinyParams<float> initTinyParams(const TinyConfig& c);

/// The shapes a config implies, for checking loaded weights: same order and names as forEach.
std::vector<std::pair<std::string, std::pair<int, int>>> tinyTensorShapes(const TinyConfig& c);

}  // namespace attnlab
