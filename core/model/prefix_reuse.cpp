#include "core/model/prefix_reuse.h"

#include <algorithm>

namespace attnlab {

int reusablePrefixRows(const Intervention& iv, const std::vector<int>& ids, int layers, bool keepMaps) {
  const Trace* prev = iv.prefix;
  if (!prev || keepMaps || iv.reuse || !iv.patchHeads.empty() || iv.residualLayer >= 0) return 0;
  // A mean needs every row; a resampled run's rows are another text's, which the last run may not have used.
  if (!iv.ablate.empty() && iv.mode != AblationMode::Zero) return 0;
  if (prev->layerCount() != layers || prev->tokenIds.empty() || !prev->causal) return 0;
  if (!prev->layers.empty() && !prev->layers[0].heads.empty() && prev->layers[0].heads[0].keepsMaps()) return 0;
  const std::size_t limit = std::min(prev->tokenIds.size(), ids.size() - 1);
  std::size_t p = 0;
  while (p < limit && prev->tokenIds[p] == ids[p]) ++p;
  return static_cast<int>(p);
}

Mat stackHeadRows(const LayerTrace& prefix, HeadPart part, int p, const Eigen::Ref<const Mat>& fresh, int heads,
                  int groupSize, int dHead) {
  Mat out(p + fresh.rows(), static_cast<Eigen::Index>(heads) * dHead);
  for (int h = 0; h < heads; ++h) {
    const HeadTrace& from = prefix.heads[static_cast<std::size_t>(h * groupSize)];
    const Mat& rows = part == HeadPart::Q ? from.q : part == HeadPart::K ? from.k() : from.v();
    out.block(0, static_cast<Eigen::Index>(h) * dHead, p, dHead) = rows.topRows(p);
  }
  out.bottomRows(fresh.rows()) = fresh;
  return out;
}

Mat stackRows(const Mat& top, int p, const Mat& fresh) {
  Mat out(p + fresh.rows(), fresh.cols());
  out.topRows(p) = top.topRows(p);
  out.bottomRows(fresh.rows()) = fresh;
  return out;
}

}  // namespace attnlab
