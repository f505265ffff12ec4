#include "core/model/head_maps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "core/base/errors.h"
#include "core/compute/packed_gemm.h"
#include "core/model/attention_head.h"
#include "core/model/blocks.h"

namespace attnlab {

Mat headScores(const HeadTrace& h) {
  if (h.scores.size() > 0) return h.scores;
  Mat scores, attention;
  explicitMaps(h.q, h.k(), h.options, scores, attention);
  return scores;
}

Mat headAttention(const HeadTrace& h) {
  if (h.attention.size() > 0) return h.attention;
  Mat scores, attention;
  explicitMaps(h.q, h.k(), h.options, scores, attention);
  return attention;
}

PackedMatrix packedKeys(const HeadTrace& h) {
  // K column-major [n, d_head] is Kᵀ [d_head, n] stored row-major: the [in, out] layout fromInOut reads.
  return PackedMatrix::fromInOut(h.k().data(), h.k().cols(), h.k().rows());
}

void headAttentionRows(const HeadTrace& h, Eigen::Index first, Eigen::Index count, Mat& block,
                       const PackedMatrix* keysT) {
  if (h.attention.size() > 0) {
    block = h.attention.middleRows(first, count);
    return;
  }
  // Only the keys the block's queries see: [first visible key of its first row, end of its last row); the
  // rest of the block is 0 (a causal map's upper triangle: half the products and exponentials at 8,192 tokens).
  const Eigen::Index n = h.k().rows();
  long c0 = 0, c1 = 0;
  visibleKeysOfRows(h.options, static_cast<long>(first), static_cast<long>(count), static_cast<long>(n), c0, c1);
  const Eigen::Index width = std::max<Eigen::Index>(0, c1 - c0);
  block.resize(count, n);
  auto seen = block.middleCols(c0, width);  // [count, width]
  if (keysT && width > 0) {
    // Q rows [first, first + count) times the whole panels of Kᵀ around [c0, c1), straight into the block's columns;
    // the panels' columns outside [c0, c1) are zeroed below. The rows are copied first: read in place (lda = n) each
    // step of the product jumps n floats, and at 8,192 tokens all 64 steps fall in one L1 set (50 → 80 GFLOP/s).
    thread_local Mat rows;
    rows = h.q.middleRows(first, count);  // [count, d_head]
    PackedProduct p;
    p.a = rows.data();
    p.lda = count;
    p.panels = keysT->panels();
    p.c = block.data();
    p.ldc = count;
    p.rows = count;
    p.inner = h.q.cols();
    p.cols = n;
    packedGemm(p, c0 / kPanelCols, (c0 + width + kPanelCols - 1) / kPanelCols);
    seen *= h.options.scale;
  } else {
    seen.noalias() = (h.q.middleRows(first, count) * h.k().middleRows(c0, width).transpose()) * h.options.scale;
  }
  block.leftCols(c0).setZero();
  block.rightCols(n - c0 - width).setZero();
  if (h.options.softcap > 0.0f) {
    const float c = h.options.softcap;
    seen = seen.unaryExpr([c](float s) { return std::tanh(s / c) * c; });
  }
  constexpr float minusInf = -std::numeric_limits<float>::infinity();
  for (Eigen::Index r = 0; r < count; ++r) {
    long f = 0, e = 0;
    visibleKeys(h.options, first + r, n, f, e);
    seen.row(r).head(std::max<long>(0, f - c0)).setConstant(minusInf);
    seen.row(r).tail(std::max<long>(0, c1 - e)).setConstant(minusInf);
  }
  softmaxRowsInPlace(seen);
}

void visibleKeysOfRows(const HeadOptions& o, long first, long count, long n, long& begin, long& end) {
  long unused = 0;
  visibleKeys(o, first, n, begin, unused);  // the first row sees the earliest keys, the last row the latest
  visibleKeys(o, first + count - 1, n, unused, end);
}

void checkMapFits(long long tokens, double budgetBytes) {
  const double bytes = static_cast<double>(tokens) * static_cast<double>(tokens) * sizeof(float);
  if (bytes <= budgetBytes) return;
  char size[64];
  std::snprintf(size, sizeof size, "%.1f GB (the map budget is %.1f GB)", bytes / (1024.0 * 1024 * 1024),
                budgetBytes / (1024.0 * 1024 * 1024));
  throw InputError("one attention map of " + std::to_string(tokens) + " tokens would take " + size +
                   ": the views draw it from pooled levels instead");
}

std::shared_ptr<const Mat> HeadMapCache::attention(const Trace& trace, int layer, int head) {
  return get(trace, 0, layer, head);
}

std::shared_ptr<const Mat> HeadMapCache::scores(const Trace& trace, int layer, int head) {
  return get(trace, 1, layer, head);
}

double HeadMapCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

std::shared_ptr<const Mat> HeadMapCache::get(const Trace& trace, int kind, int layer, int head) {
  const HeadTrace& h = trace.layers.at(static_cast<std::size_t>(layer)).heads.at(static_cast<std::size_t>(head));
  const Mat& stored = kind == 0 ? h.attention : h.scores;
  if (stored.size() > 0) return std::shared_ptr<const Mat>(&stored, [](const Mat*) {});  // the trace owns it
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->kind == kind && it->layer == layer && it->head == head) {
        entries_.splice(entries_.begin(), entries_, it);
        return it->map;
      }
  }
  checkMapFits(h.q.rows(), budget_);
  auto map = std::make_shared<const Mat>(kind == 0 ? headAttention(h) : headScores(h));  // outside the lock
  const double size = static_cast<double>(map->size()) * sizeof(float);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& e : entries_)  // another thread made it meanwhile
    if (e.kind == kind && e.layer == layer && e.head == head) return e.map;
  while (!entries_.empty() && bytes_ + size > budget_) {
    bytes_ -= static_cast<double>(entries_.back().map->size()) * sizeof(float);
    entries_.pop_back();
  }
  entries_.push_front({kind, layer, head, map});
  bytes_ += size;
  return map;
}

}  // namespace attnlab
