#pragma once
// Direct logit attribution of a T5 decoder (issue 33). T5 is pre-norm: the decoder's final stream at a target
// position p is a plain sum
//   x = embedding + Σ_l (self-attention out_l + cross-attention out_l + FF out_l)          [d]
// and the logits are RMSNorm(x)·W_Uᵀ with RMSNorm(x) = γ ⊙ x / σ, σ = √(mean(x²) + ε) (γ already holds the d^-0.5 of
// a tied lm_head: EncDecModel::decoderUnembedding). With σ frozen at the run's value the logit is linear in x:
//   logit_t = Σ_c c · g,   g = γ ⊙ (u_t [− u_versus]) / σ
// so each component's share is c · g, and an attention's output splits over its heads: head h's output z_h[p]
// [d_head] (concat's columns, after any ablation) times its rows of W_O: share_h = z_h[p] · (W_O[h rows] · g).
// Marian and BART are post-LN (every layer's output passes through a LayerNorm of the whole stream): no such sum.
#include "core/checkpoint/encdec_model.h"
#include "core/model/encdec_trace.h"

namespace attnlab {

struct DecoderAttribution {
  int position = 0, target = 0;
  int versus = -1;     ///< −1: logit(target) alone, else logit(target) − logit(versus)
  double logit = 0.0;  ///< the model's logit (difference) at the position, through its own unembedding
  double sigma = 0.0;  ///< the final RMSNorm's σ the shares were taken at (the run's own unless frozen)
  MatD self, cross;    ///< [layers, heads]: each self-attention head's and cross-attention head's share
  VecD ff;             ///< [layers]: each feed-forward block's share
  double embeddings = 0.0;
  /// The final stream minus the named parts, through g: T5 has no biases, so this is float rounding alone.
  double rest = 0.0;
  double parts() const { return self.sum() + cross.sum() + ff.sum() + embeddings; }
  /// parts() + rest: x · g, which is `logit` when σ is the run's own.
  double total() const { return parts() + rest; }
};

/// The attribution at target position `position` of `trace` (a forward pass of `model`, any ablation included) to
/// token `target` (and `versus`). `frozenSigma` > 0 takes the shares at that σ instead of the trace's own (another
/// run's, to compare two runs at one σ). Throws InputError for a post-LN family, a position outside the target or a
/// token outside the decoder's vocabulary.
DecoderAttribution decoderLogitAttribution(const EncDecModel& model, const EncDecTrace& trace, int position, int target,
                                           int versus = -1, double frozenSigma = 0.0);
/// The same from the decoder's Trace and the cross-attention's layers held apart (the window's decoder side keeps
/// the decoder's Trace as its own and the cross layers in its EncDecRun: encdec_run.cpp).
DecoderAttribution decoderLogitAttribution(const EncDecModel& model, const Trace& decoder,
                                           const std::vector<CrossLayerTrace>& cross, int position, int target,
                                           int versus = -1, double frozenSigma = 0.0);

}  // namespace attnlab
