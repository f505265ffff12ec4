#include "core/atlas/ablation_effect.h"

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

VecD nextTokenLosses(const Unembedding& u, const Mat& x, const std::vector<int>& ids,
                     const std::vector<int>& positions) {
  Mat rows(static_cast<Eigen::Index>(positions.size()), x.cols());
  for (std::size_t k = 0; k < positions.size(); ++k) rows.row(static_cast<Eigen::Index>(k)) = x.row(positions[k]);
  const Mat logits = u.logits(rows).transpose();  // [vocab, m]: a position's logits contiguous
  VecD loss(static_cast<Eigen::Index>(positions.size()));
  for (Eigen::Index k = 0; k < loss.size(); ++k) {
    const int next = ids[static_cast<std::size_t>(positions[static_cast<std::size_t>(k)] + 1)];
    loss(k) = logSumExp(logits.col(k)) - static_cast<double>(logits(next, k));
  }
  return loss;
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
  const int passes = info.layers * info.heads;
  r.effect.assign(static_cast<std::size_t>(info.layers), std::vector<double>(static_cast<std::size_t>(info.heads)));
  for (int l = 0; l < info.layers; ++l)
    for (int h = 0; h < info.heads; ++h) {
      control.checkpoint(static_cast<double>(l * info.heads + h) / passes);
      Intervention iv;
      iv.ablate = {{l, h}};
      iv.mode = AblationMode::Zero;
      iv.reuse = &plain;  // the layers before the head's are the plain run's: half the work on average
      iv.reuseLayers = l;
      const Trace t = model.forward(text, cancelOnly, iv);
      const VecD loss = nextTokenLosses(u, t.layers.back().residualOut, text.ids, r.positions);
      r.effect[l][h] = (loss - base).cwiseAbs().mean();
    }
  control.checkpoint(1.0);
  return r;
}

}  // namespace attnlab
