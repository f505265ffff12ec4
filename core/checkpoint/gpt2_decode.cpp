#include "core/checkpoint/gpt2_decode.h"

#include <cmath>
#include <string>

#include "core/base/errors.h"
#include "core/model/blocks.h"

namespace attnlab {

std::unique_ptr<DecodeSession> Gpt2Model::startDecoding(const std::vector<int>& promptIds,
                                                        const RunControl& control) const {
  if (!unembedding()) throw InputError(name_ + " has no unembedding (ln_f): it cannot predict tokens");
  return std::make_unique<Gpt2DecodeSession>(*this, promptIds, control);
}

Gpt2DecodeSession::Gpt2DecodeSession(const Gpt2Model& model, const std::vector<int>& promptIds,
                                     const RunControl& control)
    : HfDecodeSession(model), model_(model) {
  start(promptIds, control);
}

Mat Gpt2DecodeSession::run(const std::vector<int>& ids, const RunControl& control) {
  const HfConfig& c = model_.config_;
  const int m = static_cast<int>(ids.size()), p0 = tokenCount(), d = c.dModel, dh = c.dHead();
  Mat x(m, d);  // h⁰ = wte[ids] + wpe[p₀ .. p₀ + m)
  for (int i = 0; i < m; ++i) x.row(i) = model_.wte_.matrix().row(ids[i]) + model_.wpe_.matrix().row(p0 + i);
  for (int l = 0; l < c.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / c.layers);
    const Gpt2LayerWeights& w = model_.layers_[l];
    const Mat a = layerNorm(x, w.ln1Gamma.vector(), w.ln1Beta.vector(), c.layerNormEps);
    const Mat qkv = w.attnW.affine(a, w.attnB.vector());  // [m, 3d]: Q | K | V
    caches_[l].append(qkv.middleCols(d, d), qkv.middleCols(2 * d, d));
    HeadOptions o;
    o.scale = c.scaleAttention ? 1.0f / std::sqrt(static_cast<float>(dh)) : 1.0f;
    if (c.scaleByInverseLayer) o.scale /= static_cast<float>(l + 1);
    const Mat concat = attendCached(qkv.leftCols(d), caches_[l], c.heads, c.heads, dh, o);  // [m, d]
    const Mat h = x + w.projW.affine(concat, w.projB.vector());
    Mat hidden = w.fcW.affine(layerNorm(h, w.ln2Gamma.vector(), w.ln2Beta.vector(), c.layerNormEps), w.fcB.vector());
    applyActivation(hidden, c.activation);
    x = h + w.mprojW.affine(hidden, w.mprojB.vector());
  }
  control.checkpoint(1.0);
  return x;
}

}  // namespace attnlab
