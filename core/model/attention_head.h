#pragma once
#include <vector>

#include "core/model/trace.h"

namespace attnlab {

/// One head of scaled dot-product attention from its projected inputs, recording everything:
///   scores = Q·Kᵀ·scale          [n, n]   (kept unmasked in the trace)
///   A      = softmax(mask(scores)) rows    [n, n]
///   out    = A·V                 [n, d_head]
HeadTrace attendHead(Mat q, Mat k, Mat v, float scale, bool causal);

/// Every head of a layer: head h reads columns [h·dHead, (h+1)·dHead) of q, k and v [n, heads·dHead]
/// (column blocks of one fused [n, 3d] matrix are fine). When the layer's attention has at least
/// kParallelHeadMadds multiply-adds (GPT-2 small from about 100 tokens) the heads run side by side on the
/// OpenMP threads; the numbers are the same either way. `concat` [n, heads·dHead] receives the outputs.
std::vector<HeadTrace> attendHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                   const Eigen::Ref<const Mat>& v, int heads, int dHead, float scale, bool causal,
                                   Mat& concat);

inline constexpr double kParallelHeadMadds = 8.0e6;

/// What today's decoders add to a head's scores (DESIGN.md, Round two):
///   softcap c > 0    scores ← tanh(scores / c)·c after scaling, before the mask (Gemma 2)
///   window W > 0     query i sees key j only when i − W < j ≤ i (Mistral, Qwen2, Gemma 2/3 local layers)
struct HeadOptions {
  float scale = 1.0f;
  bool causal = true;
  int window = 0;
  float softcap = 0.0f;
};

/// One head with those options; the trace keeps the scaled (and soft-capped) scores unmasked.
HeadTrace attendHead(Mat q, Mat k, Mat v, const HeadOptions& o);

/// Grouped-query attention: q [n, heads·dHead], k and v [n, kvHeads·dHead]; query head h reads kv head
/// ⌊h / (heads / kvHeads)⌋, whose K and V it keeps in its trace. `concat` [n, heads·dHead] receives the outputs.
std::vector<HeadTrace> attendGroupedHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                          const Eigen::Ref<const Mat>& v, int heads, int kvHeads, int dHead,
                                          const HeadOptions& o, Mat& concat);

}  // namespace attnlab
