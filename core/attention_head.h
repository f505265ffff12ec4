#pragma once
#include "core/trace.h"

namespace attnlab {

/// One head of scaled dot-product attention from its projected inputs, recording everything:
///   scores = Q·Kᵀ·scale          [n, n]   (kept unmasked in the trace)
///   A      = softmax(mask(scores)) rows    [n, n]
///   out    = A·V                 [n, d_head]
HeadTrace attendHead(Mat q, Mat k, Mat v, float scale, bool causal);

}  // namespace attnlab
