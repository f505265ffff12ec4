#include "core/model/head_pyramid.h"

#include <utility>

#include "core/model/head_maps.h"

namespace attnlab {

std::shared_ptr<MapPyramid> headPyramid(const HeadTrace& h, std::shared_ptr<const void> owner,
                                        const MapPyramid::Options& options) {
  auto pyramid = std::make_shared<MapPyramid>();
  buildHeadPyramid(*pyramid, h, std::move(owner), options);
  return pyramid;
}

void buildHeadPyramid(MapPyramid& into, const HeadTrace& h, std::shared_ptr<const void> owner,
                      const MapPyramid::Options& options, std::shared_ptr<std::vector<float>> rowMax) {
  const bool stored = h.attention.size() > 0;
  const int n = static_cast<int>(stored ? h.attention.rows() : h.q.rows());
  MapPyramid::Options o = options;
  o.concurrentProducer = true;  // headAttentionRows reads the trace only
  const HeadOptions rule = h.options;
  if (!stored)  // a stored map (the variants of the first round too) is read as it is
    o.nonZeroColumns = [rule, n](int first, int count, int& c0, int& c1) {
      long begin = 0, end = 0;
      visibleKeysOfRows(rule, first, count, n, begin, end);  // what headAttentionRows computes
      c0 = static_cast<int>(begin);
      c1 = static_cast<int>(end);
    };
  // Kᵀ packed once for the whole map: every row block's Q·Kᵀ then streams its panels (head_maps.h).
  if (rowMax) rowMax->assign(static_cast<std::size_t>(n), 0.f);
  const auto keysT = std::make_shared<const PackedMatrix>(stored ? PackedMatrix() : packedKeys(h));
  into.build(
      n, n,
      [&h, keysT, owner = std::move(owner), rowMax](int first, int count, Mat& block) {
        headAttentionRows(h, first, count, block, keysT->empty() ? nullptr : keysT.get());
        if (!rowMax) return;
        for (int r = 0; r < count; ++r) {  // rows of distinct blocks: threads never write the same entry
          const float top = block.row(r).maxCoeff();
          (*rowMax)[static_cast<std::size_t>(first + r)] = top;
          if (top > 0) block.row(r) /= top;
        }
      },
      o);
}

}  // namespace attnlab
