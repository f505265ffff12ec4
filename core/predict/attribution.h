#pragma once
// Direct logit attribution (DESIGN.md, Round two). With the final norm's σ (and mean) frozen at their
// values for the position, the logit of token t is linear in the residual stream's components c:
//   logit_t = Σ_c [γ ⊙ (c − mean(c)) / σ] · u_t + β · u_t + b_t        (RMSNorm: no mean, no β)
// over c = the embeddings (token + position), each head's output through its rows of W_O, each layer's
// b_O, and each MLP's output. The parts add up to the logit before any soft-capping.
//   heads       head h of layer l: out_h[p] · W_O[h rows]
//   mlp         the MLP's whole output, its output bias included (the models keep it inside mlpOut)
//   embeddings  the stream entering layer 0
//   bias        Σ_l b_O,l through the frozen norm, plus β · u_t + b_t
// Models with Gemma 2/3 sandwich norms are refused: their post-attention norm makes a layer's attention
// output non-linear in its heads, so no per-head share adds up. So are models whose unembedding has a transform
// before the norm (BERT's masked-LM head: dense + GELU), for which the logit is not linear in the stream.
#include <vector>

#include "core/model/model.h"

namespace attnlab {

/// Every head's direct contribution to the residual stream at one position, [d] each, exact to float
/// rounding: the models keep W_O packed and private, so it is read off one probe forward pass in which every
/// head's output is patched (intervention.h) with rows holding a single head's output at the position
/// (and a zero row, which gives b_O). The probe uses heads + 1 rows and none of the text.
struct HeadContributions {
  int position = 0;
  std::vector<Mat> heads;  ///< per layer [heads, d]
  Mat outputBias;          ///< [layers, d]: b_O of each layer
};
/// Throws InputError for a sandwich-norm model, one with a non-linear head, or a position outside the text.
HeadContributions headContributions(const Model& model, const TokenizedText& text, const Trace& trace, int position);

/// W_O and b_O of every layer, read once per model for repeated attribution (the GUI: every edit, the atlas's
/// corpus scan). W_O comes from the model's weights where it gives them (Model::ovCircuitWeights: GPT-2, the
/// decoders) and b_O from one probe pass with every head's output zero; otherwise both come from the probe below.
/// `text` supplies token ids for the probe rows (any will do).
struct OutputProjections {
  std::vector<Mat> weights;  ///< per layer [H·d_head, d]
  Mat bias;                  ///< [layers, d]
};
/// Throws InputError for a sandwich-norm model or one with a non-linear head; Cancelled through `control` between
/// passes.
OutputProjections readOutputProjections(const Model& model, const TokenizedText& text, int chunk = 128,
                                        const RunControl& control = {});
/// The same read by probing alone, for any model: the heads' outputs patched to rows e_i of the identity, then a
/// zero row, ⌈(H·d_head + 1) / chunk⌉ forward passes of ≤ `chunk` rows (GPT-2 small: 7 passes of 128 rows, 0.8 s;
/// 28 MB kept).
OutputProjections probeOutputProjections(const Model& model, const TokenizedText& text, int chunk = 128,
                                         const RunControl& control = {});
/// The same shares as headContributions(model, …) from the read projections: H·d_head·d multiply-adds per
/// layer.
HeadContributions headContributions(const OutputProjections& projections, const Trace& trace, int position);

struct Attribution {
  int position = 0, target = 0;
  int versus = -1;     ///< −1: attribution of logit(target) alone, else of logit(target) − logit(versus)
  double logit = 0.0;  ///< the model's logit (difference) before soft-capping, from the unembedding itself
  MatD heads;          ///< [layers, heads]
  VecD mlp;            ///< [layers]
  double embeddings = 0.0, bias = 0.0;
  /// heads + mlp + embeddings + bias: equals `logit` to float precision.
  double total() const { return heads.sum() + mlp.sum() + embeddings + bias; }
};
/// Throws InputError for a sandwich-norm model, one with a non-linear head, or a token outside the vocabulary.
Attribution directLogitAttribution(const Model& model, const Trace& trace, const HeadContributions& parts, int target,
                                   int versus = -1);

/// The read W_O of every layer applied to the frozen final norm's linear form for logit(target) [− logit(versus)]
/// taken at σ = 1 (g₀; the form at the position's σ is g₀ / σ): head h of layer l then adds
/// (out_h[p] · heads[l][h's d_head rows]) / σ to the logit. Made once per target by one pass over the read W_O
/// (SmolLM2: 40 MB, ~3 ms), it makes each further attribution to that target — the window's head toggles, whose
/// prediction mostly stays — H·d_head multiply-adds per layer, whatever the layers the toggle changed.
struct ProjectedForm {
  int target = -1, versus = -1;
  std::vector<VecD> heads;  ///< per layer [H·d_head]: W_O,l · g₀
  double outputBias = 0.0;  ///< Σ_l b_O,l · g₀
};
/// Throws InputError for a token outside the vocabulary.
ProjectedForm projectedForm(const Model& model, const OutputProjections& projections, int target, int versus = -1);
/// The forms of several targets (the same versus) from one pass over the read W_O, in the order given: the pass is
/// memory-bound, so ten targets cost about what one does. The window makes them for the run's top predictions, so
/// that a toggle which changes the prediction mostly finds its form made.
std::vector<ProjectedForm> projectedForms(const Model& model, const OutputProjections& projections,
                                          const std::vector<int>& targets, int versus = -1);
/// The same attribution as directLogitAttribution(model, trace, headContributions(projections, trace, position),
/// form.target, form.versus), to float rounding, from the form made from those projections.
Attribution directLogitAttribution(const Model& model, const Trace& trace, const ProjectedForm& form, int position);

/// logit(target) [− logit(versus) when versus ≥ 0] of one residual row x [d], through the whole head (transform,
/// norm, W_U, bias, soft-cap).
double logitDifference(const Unembedding& u, const Vec& x, int target, int versus = -1);

}  // namespace attnlab
