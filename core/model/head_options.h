#pragma once
// How one head turns its queries and keys into attention weights. Kept with every HeadTrace, so a map that
// the forward pass did not keep (long inputs) is recomputed from Q and K by exactly the rule that made it.

namespace attnlab {

/// What today's models add to a head's scores (DESIGN.md, Round two):
///   scale            scores = Q·Kᵀ·scale
///   softcap c > 0    scores ← tanh(scores / c)·c after scaling, before the mask (Gemma 2)
///   causal           query i sees key j only when j ≤ i
///   window W > 0     query i sees key j only when i − W < j ≤ i (Mistral, Qwen2, Gemma 2/3 local layers)
struct HeadOptions {
  float scale = 1.0f;
  bool causal = true;
  int window = 0;
  float softcap = 0.0f;
};

/// The keys query `row` of an n-token input sees: [first, end).
inline void visibleKeys(const HeadOptions& o, long row, long n, long& first, long& end) {
  end = o.causal ? row + 1 : n;
  first = o.window > 0 && row - o.window + 1 > 0 ? row - o.window + 1 : 0;
}

}  // namespace attnlab
