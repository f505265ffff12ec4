#include "core/checkpoint/encdec_attribution.h"

#include <cmath>
#include <string>

#include "core/base/errors.h"

namespace attnlab {
namespace {

/// Head h's share of each layer's attention: concat's row [H·d_head] · (W_O·g) [H·d_head], per head block.
void headShares(const Mat& concat, const Mat& wO, const VecD& g, int position, int heads, MatD& out, int layer) {
  const VecD proj = wO.cast<double>() * g;  // [H·d_head]
  const VecD z = concat.row(position).transpose().cast<double>();
  const Eigen::Index dh = z.size() / heads;
  for (int h = 0; h < heads; ++h) out(layer, h) = z.segment(h * dh, dh).dot(proj.segment(h * dh, dh));
}

}  // namespace

DecoderAttribution decoderLogitAttribution(const EncDecModel& model, const EncDecTrace& trace, int position, int target,
                                           int versus, double frozenSigma) {
  return decoderLogitAttribution(model, trace.decoder, trace.cross, position, target, versus, frozenSigma);
}

DecoderAttribution decoderLogitAttribution(const EncDecModel& model, const Trace& dec,
                                           const std::vector<CrossLayerTrace>& cross, int position, int target,
                                           int versus, double frozenSigma) {
  const EncDecConfig& c = model.config();
  if (!c.preNormRms)
    throw InputError(
        "direct logit attribution is not defined for a post-LN decoder (Marian, BART): every layer's "
        "output passes through a LayerNorm of the whole stream");
  if (dec.layers.empty() || cross.size() != dec.layers.size())
    throw InputError("the decoder's run has " + std::to_string(dec.layers.size()) + " layers and " +
                     std::to_string(cross.size()) + " cross-attention layers: not one decoder's pass");
  const int n = static_cast<int>(dec.embeddings.rows());
  if (position < 0 || position >= n)
    throw InputError("position " + std::to_string(position) + " is outside the target's " + std::to_string(n) +
                     " tokens");
  const Unembedding& u = model.decoderUnembedding();
  for (int id : {target, versus})
    if (id != -1 && (id < 0 || id >= u.vocab))
      throw InputError("token id " + std::to_string(id) + " is outside the decoder's vocabulary of " +
                       std::to_string(u.vocab));

  DecoderAttribution a;
  a.position = position;
  a.target = target;
  a.versus = versus;
  const Eigen::Index d = dec.embeddings.cols();
  const VecD x = dec.layers.back().residualOut.row(position).transpose().cast<double>();
  a.sigma = frozenSigma > 0 ? frozenSigma : std::sqrt(x.squaredNorm() / double(d) + u.eps);
  // The model's own logit: its unembedding on the final stream (σ recomputed there, as the run did).
  const Vec row = dec.layers.back().residualOut.row(position).transpose();
  const Vec logits = u.logits(Mat(row.transpose())).row(0).transpose();
  a.logit = double(logits(target)) - (versus >= 0 ? double(logits(versus)) : 0.0);

  VecD direction = u.weights().row(target).transpose().cast<double>();
  if (versus >= 0) direction -= u.weights().row(versus).transpose().cast<double>();
  const VecD g = u.gamma.cast<double>().cwiseProduct(direction) / a.sigma;  // [d]

  const int layers = static_cast<int>(dec.layers.size());
  const int heads = static_cast<int>(dec.layers[0].heads.size());
  a.self = MatD::Zero(layers, heads);
  a.cross = MatD::Zero(layers, heads);
  a.ff = VecD::Zero(layers);
  a.embeddings = dec.embeddings.row(position).cast<double>().dot(g);
  for (int l = 0; l < layers; ++l) {
    headShares(dec.layers[l].concat, model.decoderOutputProjection(l, false), g, position, heads, a.self, l);
    headShares(cross[static_cast<std::size_t>(l)].concat, model.decoderOutputProjection(l, true), g, position, heads,
               a.cross, l);
    a.ff(l) = dec.layers[l].mlpOut.row(position).cast<double>().dot(g);
  }
  a.rest = x.dot(g) - a.parts();
  return a;
}

}  // namespace attnlab
