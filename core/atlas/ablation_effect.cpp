#include "core/atlas/ablation_effect.h"

#include <algorithm>
#include <cmath>

#include "core/base/errors.h"
#include "core/predict/prediction.h"

namespace attnlab {

std::vector<int> evenlySpacedPositions(int tokens, int count) {
  std::vector<int> out;
  const int last = tokens - 2;
  if (last < 0 || count <= 0) return out;
  if (count == 1 || last == 0) return {last};
  for (int k = 0; k < count; ++k) {
    const int p = static_cast<int>(std::lround(static_cast<double>(k) * last / (count - 1)));
    if (out.empty() || p != out.back()) out.push_back(p);
  }
  return out;
}

namespace {

/// Next-token losses of final-stream rows [m, d] whose next tokens are `targets` [m].
VecD lossesOfRows(const Unembedding& u, const Mat& rows, const std::vector<int>& targets) {
  const Mat logits = u.logits(rows).transpose();  // [vocab, m]: a position's logits contiguous
  VecD loss(rows.rows());
  for (Eigen::Index k = 0; k < loss.size(); ++k)
    loss(k) = logSumExp(logits.col(k)) - static_cast<double>(logits(targets[static_cast<std::size_t>(k)], k));
  return loss;
}

/// Rows through W_U per product: a layer's runs in a few products (W_U streamed once per 128 rows, not per run),
/// the logits at most 128 × vocab floats at a time (Llama 3.2: 66 MB).
constexpr Eigen::Index kLossRows = 128;

}  // namespace

VecD nextTokenLosses(const Unembedding& u, const Mat& x, const std::vector<int>& ids,
                     const std::vector<int>& positions) {
  Mat rows(static_cast<Eigen::Index>(positions.size()), x.cols());
  std::vector<int> targets;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    rows.row(static_cast<Eigen::Index>(k)) = x.row(positions[k]);
    targets.push_back(ids[static_cast<std::size_t>(positions[k] + 1)]);
  }
  return lossesOfRows(u, rows, targets);
}

HeadAblationEffects measureAblationEffect(const Model& model, const TokenizedText& text, int maxPositions,
                                          const RunControl& control) {
  const Unembedding& u = requireUnembedding(model);
  const int n = static_cast<int>(text.tokens.size());
  if (text.ids.size() != text.tokens.size() || n < 2)
    throw InputError("the ablation effect needs a text of at least 2 tokens with vocabulary ids");
  const ModelInfo info = model.info();
  HeadAblationEffects r;
  r.tokens = n;
  r.positions = evenlySpacedPositions(n, maxPositions);
  const RunControl cancelOnly{control.cancel, {}};
  const Trace plain = model.forward(text, cancelOnly);
  const VecD base = nextTokenLosses(u, plain.layers.back().residualOut, text.ids, r.positions);
  const auto p = static_cast<Eigen::Index>(r.positions.size());
  std::vector<int> targets;  // the next token of each position, once per run of a layer
  for (int h = 0; h < info.heads; ++h)
    for (int position : r.positions) targets.push_back(text.ids[static_cast<std::size_t>(position + 1)]);
  r.effect.assign(static_cast<std::size_t>(info.layers), std::vector<double>(static_cast<std::size_t>(info.heads)));
  // A layer's heads at once: the model resumes their runs from the plain one at that layer, stacked
  // (Model::rowsWith), and their rows go through W_U together.
  for (int l = 0; l < info.layers; ++l) {
    control.checkpoint(static_cast<double>(l) / info.layers);
    std::vector<Intervention> ivs(static_cast<std::size_t>(info.heads));
    for (int h = 0; h < info.heads; ++h) ivs[static_cast<std::size_t>(h)].ablate = {{l, h}};  // zero ablation
    const std::vector<Mat> rows = model.rowsWith(text, plain, ivs, r.positions);              // [heads][positions, d]
    Mat stacked(info.heads * p, u.d);
    for (int h = 0; h < info.heads; ++h) stacked.middleRows(h * p, p) = rows[static_cast<std::size_t>(h)];
    VecD loss(stacked.rows());
    for (Eigen::Index b = 0; b < stacked.rows(); b += kLossRows) {
      const Eigen::Index m = std::min(kLossRows, stacked.rows() - b);
      const std::vector<int> next(targets.begin() + b, targets.begin() + b + m);
      loss.segment(b, m) = lossesOfRows(u, stacked.middleRows(b, m), next);
    }
    for (int h = 0; h < info.heads; ++h) r.effect[l][h] = (loss.segment(h * p, p) - base).cwiseAbs().mean();
  }
  control.checkpoint(1.0);
  return r;
}

}  // namespace attnlab
