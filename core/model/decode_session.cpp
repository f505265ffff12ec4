#include "core/model/decode_session.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/errors.h"
#include "core/model/blocks.h"

namespace attnlab {

void KvCache::append(const Eigen::Ref<const Mat>& newK, const Eigen::Ref<const Mat>& newV) {
  const Eigen::Index m = newK.rows();
  if (rows + m > k.rows()) {
    const Eigen::Index capacity = std::max<Eigen::Index>(rows + m, std::max<Eigen::Index>(16, 2 * k.rows()));
    k.conservativeResize(capacity, newK.cols());
    v.conservativeResize(capacity, newV.cols());
  }
  k.middleRows(rows, m) = newK;
  v.middleRows(rows, m) = newV;
  rows += m;
}

Mat attendCached(const Mat& q, const KvCache& cache, int heads, int kvHeads, int dHead, const HeadOptions& o) {
  const Eigen::Index m = q.rows(), p0 = cache.rows - m;
  // The oldest key any of the m queries may see: p₀ − W + 1 with a window, else 0.
  const Eigen::Index first = o.window > 0 ? std::max<Eigen::Index>(0, p0 - o.window + 1) : 0;
  const Eigen::Index keys = cache.rows - first;
  const int group = heads / kvHeads;
  constexpr float minusInf = -std::numeric_limits<float>::infinity();
  Mat out(m, static_cast<Eigen::Index>(heads) * dHead);
  for (int h = 0; h < heads; ++h) {
    const Eigen::Index qc = static_cast<Eigen::Index>(h) * dHead, kc = static_cast<Eigen::Index>(h / group) * dHead;
    const auto k = cache.k.block(first, kc, keys, dHead);  // [keys, d_head]
    const auto v = cache.v.block(first, kc, keys, dHead);
    Mat s(m, keys);
    s.noalias() = (q.middleCols(qc, dHead) * k.transpose()) * o.scale;
    if (o.softcap > 0.0f) {
      const float c = o.softcap;
      s = s.unaryExpr([c](float x) { return std::tanh(x / c) * c; });
    }
    for (Eigen::Index i = 0; i < m; ++i) {
      const Eigen::Index pos = p0 + i;  // query position; key column j is position first + j
      for (Eigen::Index j = 0; j < keys; ++j) {
        const Eigen::Index kp = first + j;
        if ((o.causal && kp > pos) || (o.window > 0 && kp <= pos - o.window)) s(i, j) = minusInf;
      }
    }
    softmaxRowsInPlace(s);
    out.middleCols(qc, dHead).noalias() = s * v;
  }
  return out;
}

void checkTokenIds(const std::vector<int>& ids, int vocabSize) {
  for (int id : ids)
    if (id < 0 || id >= vocabSize)
      throw InputError("token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                       std::to_string(vocabSize - 1) + ")");
}

Vec nextTokenLogits(const Unembedding& u, const Mat& x) { return u.logits(x).row(0).transpose(); }

}  // namespace attnlab
