#include "core/checkpoint/decoder_decode.h"

#include <cmath>
#include <string>

#include "core/base/errors.h"
#include "core/model/blocks.h"

namespace attnlab {

std::unique_ptr<DecodeSession> DecoderModel::startDecoding(const std::vector<int>& promptIds,
                                                           const RunControl& control) const {
  return std::make_unique<DecoderDecodeSession>(*this, promptIds, control);
}

DecoderDecodeSession::DecoderDecodeSession(const DecoderModel& model, const std::vector<int>& promptIds,
                                           const RunControl& control)
    : HfDecodeSession(model), model_(model) {
  const DecoderSpec& d = model_.config_.decoder;
  // Up to max_position_embeddings even dynamic NTK scaling keeps the base θ (rope.h): one table serves.
  globalInv_ = ropeInverseFrequencies(d.rope, model_.config_.dHead(), 1);
  localInv_ = ropeInverseFrequencies(d.localRope, model_.config_.dHead(), 1);
  start(promptIds, control);
}

std::string DecoderDecodeSession::roomNote() const {
  return model_.config_.decoder.rope.scaling == RopeScaling::Dynamic
             ? " (dynamic NTK RoPE rescales every cached key past them: run the whole sentence instead)"
             : "";
}

RopeTables DecoderDecodeSession::tables(const std::vector<double>& inv, int p0, int m) const {
  const int half = static_cast<int>(inv.size());
  RopeTables t{Mat(m, half), Mat(m, half)};
  for (int r = 0; r < m; ++r)
    for (int i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p0 + r) * inv[i];  // in double, as ropeTables does
      t.cos(r, i) = static_cast<float>(std::cos(angle));
      t.sin(r, i) = static_cast<float>(std::sin(angle));
    }
  return t;
}

Mat DecoderDecodeSession::run(const std::vector<int>& ids, const RunControl& control) {
  const HfConfig& c = model_.config_;
  const int m = static_cast<int>(ids.size()), p0 = tokenCount();
  Mat x(m, c.dModel);
  for (int i = 0; i < m; ++i) x.row(i) = model_.embed_.matrix().row(ids[i]) * model_.embedScale_;
  const RopeTables global = tables(globalInv_, p0, m);
  RopeTables local;
  for (bool b : c.decoder.usesLocalRope)
    if (b && local.cos.size() == 0) local = tables(localInv_, p0, m);
  for (int l = 0; l < c.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / c.layers);
    x = layerStep(l, x, c.decoder.usesLocalRope[l] ? local : global);
  }
  control.checkpoint(1.0);
  return x;
}

Mat DecoderDecodeSession::layerStep(int layer, const Mat& x, const RopeTables& rope) {
  const DecoderLayerWeights& w = model_.layers_[layer];
  const DecoderSpec& d = model_.config_.decoder;
  const int heads = model_.config_.heads, kv = d.kvHeads, dh = model_.config_.dHead();
  const Eigen::Index qw = static_cast<Eigen::Index>(heads) * dh, kvw = static_cast<Eigen::Index>(kv) * dh;
  const Mat qkv = w.qkvW.affine(model_.norm(x, w.inNorm), w.qkvB);  // [m, (H + 2·H_kv)·d_head]
  Mat q = qkv.leftCols(qw), k = qkv.middleCols(qw, kvw);
  if (d.qkNorm) {  // RMSNorm over each head's d_head columns
    for (int h = 0; h < heads; ++h)
      q.middleCols(h * dh, dh) = rmsNorm(Mat(q.middleCols(h * dh, dh)), w.qNorm.vector(), d.rmsEps, d.normAddsOne);
    for (int h = 0; h < kv; ++h)
      k.middleCols(h * dh, dh) = rmsNorm(Mat(k.middleCols(h * dh, dh)), w.kNorm.vector(), d.rmsEps, d.normAddsOne);
  }
  applyRope(q, heads, dh, rope);
  applyRope(k, kv, dh, rope);
  caches_[layer].append(k, qkv.rightCols(kvw));
  HeadOptions o;
  o.scale = static_cast<float>(d.attnScale);
  o.window = d.window[layer];
  o.softcap = static_cast<float>(d.attnSoftcap);
  Mat attn = w.oW.affine(attendCached(q, caches_[layer], heads, kv, dh, o), w.oB);  // [m, d]
  if (d.sandwichNorms) attn = model_.norm(attn, w.postAttnNorm);
  const Mat h = x + attn;
  Mat m = model_.mlp(model_.norm(h, d.sandwichNorms ? w.preFfnNorm : w.postAttnNorm), w);
  if (d.sandwichNorms) m = model_.norm(m, w.postFfnNorm);
  return h + m;
}

}  // namespace attnlab
