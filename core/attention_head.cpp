#include "core/attention_head.h"

#include "core/blocks.h"

namespace attnlab {

HeadTrace attendHead(Mat q, Mat k, Mat v, float scale, bool causal) {
  HeadTrace h;
  h.scores.noalias() = (q * k.transpose()) * scale;  // [n, n]
  h.attention = h.scores;
  if (causal) applyCausalMask(h.attention);
  softmaxRowsInPlace(h.attention);
  h.output.noalias() = h.attention * v;  // [n, d_head]
  h.q = std::move(q);
  h.k = std::move(k);
  h.v = std::move(v);
  return h;
}

}  // namespace attnlab
