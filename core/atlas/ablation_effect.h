#pragma once
// The ablation effect of every head (issue 17): the mean over sampled positions i of |Δ loss_i| when the head is
// zero-ablated (intervention.h), loss_i = −log softmax(logits_i)[t_{i+1}], the next-token cross-entropy through
// the whole unembedding (soft-cap included). One run per head on one window of text, the loss read at ≤
// `maxPositions` evenly spaced positions: one plain pass, then per layer its heads' runs resumed from the plain
// one at that layer and stacked (Model::rowsWith: GPT-2 and the decoders; other models one full pass per head),
// their rows through W_U in products of ≤ 128 rows. GPT-2 small, 64 tokens: 7.7 s as 144 separate passes.
#include <vector>

#include "core/atlas/head_atlas.h"
#include "core/base/run_control.h"
#include "core/model/model.h"

namespace attnlab {

struct HeadAblationEffects {
  HeadGrid effect;             ///< [layers][heads] mean |Δ loss| (nats)
  std::vector<int> positions;  ///< the positions the loss was read at
  int tokens = 0;              ///< the text's length
};

/// The ≤ `count` positions, evenly spaced over 0 … tokens − 2 (each has a next token), in order, without repeats.
std::vector<int> evenlySpacedPositions(int tokens, int count);

/// Next-token losses of the stream after the last layer x [n, d] at `positions`, for the text's ids.
VecD nextTokenLosses(const Unembedding& u, const Mat& x, const std::vector<int>& ids,
                     const std::vector<int>& positions);

/// Throws InputError when the model has no unembedding or the text no ids or fewer than 2 tokens; Cancelled
/// through `control` between passes (whose progress gets the fraction of passes done).
HeadAblationEffects measureAblationEffect(const Model& model, const TokenizedText& text, int maxPositions = 32,
                                          const RunControl& control = {});

}  // namespace attnlab
