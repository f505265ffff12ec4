#pragma once
// The next-token distribution at a position and the logit lens (DESIGN.md, Round two):
//   logits = softcap(norm(x')·W_Uᵀ + b) of the residual row x [d] → [vocab];  x' = x, or for BERT's MLM head
//            x' = gelu(x·W_Tᵀ + b_T) (unembedding.h)
//   probs  = softmax(logits / T) over the whole vocabulary, in double
// The logit lens decodes every layer's residual stream through the same final norm and unembedding. A masked LM
// (BERT with its MLM head) predicts the token hidden at a [MASK]: its default position is the first one.
// Cost: vocab·d multiply-adds per decoded row (GPT-2 small: 39 M).
#include <string>
#include <vector>

#include "core/model/model.h"

namespace attnlab {

struct TokenScore {
  int id = 0;
  std::string token;  ///< the model's vocabulary piece ("Ġmat")
  double logit = 0.0, prob = 0.0;
};

/// The model's unembedding; throws InputError naming the model when it has none.
const Unembedding& requireUnembedding(const Model& model);
/// Whether the model predicts a masked token ([MASK] for BERT with its MLM head) rather than the next token: its
/// prediction at a position is the distribution of the token hidden there.
bool predictsMaskedToken(const Model& model);
/// The position a prediction looks at when none is chosen: the first [MASK] of a masked language model's text,
/// else the last token (the next-token prediction); −1 for an empty trace.
int defaultPosition(const Model& model, const Trace& trace);
/// Throws InputError when `position` is outside a text of `tokens` tokens; −1 means the last token.
int resolvePosition(int position, int tokens);
/// A token argument: a decimal id or a vocabulary piece; throws InputError when the model has neither.
int resolveToken(const Model& model, const std::string& tokenOrId);

/// Logits [vocab] of one residual row x [d] (after the soft-cap when the model has one).
Vec rowLogits(const Unembedding& u, const Vec& x);
/// softmax(logits / T) in double; T > 0.
VecD softmaxAt(const Vec& logits, double temperature = 1.0);
/// log Σᵢ exp(zᵢ / T) of logits over a vocabulary: the exps in float packets (a double exp is scalar here, 1.6 M of
/// them per 32 rows of GPT-2's vocabulary), their sums added in double per block of 4096. −∞ for no logits.
double logSumExp(const Eigen::Ref<const Vec>& logits, double temperature = 1.0);
/// The k most probable tokens, most probable first.
std::vector<TokenScore> topTokens(const Model& model, const Vec& logits, int k, double temperature = 1.0);
/// Throws InputError naming the first token whose logit is NaN or ±Inf (weights of 3e38 overflow float32 even when
/// every weight is finite): a prediction of such logits would be an empty or NaN list, never a real answer.
void requireFiniteLogits(const Vec& logits);
/// What sampling would keep after top-k (0 = all) and top-p (1 = all) filtering, most probable first,
/// with probabilities renormalised over the kept set.
std::vector<TokenScore> samplingKeeps(const Model& model, const Vec& logits, double temperature, int topK, double topP);

/// The prediction at `position` (−1: last) of a traced forward pass: top-k with logits and probabilities.
std::vector<TokenScore> predict(const Model& model, const Trace& trace, int position, int k, double temperature = 1.0);

struct LensRow {
  int layer = 0;  ///< −1: the embeddings (the stream entering layer 0), l: the stream after layer l
  std::vector<TokenScore> top;
};
/// The logit lens at one position: the embeddings (layer −1), then each layer's residualOut.
std::vector<LensRow> logitLens(const Model& model, const Trace& trace, int position, int k);

/// The prediction and the logit lens at one position from one product of (layers + 1) rows by W_U (the
/// lens's last row is the prediction's): what the Prediction view shows after each edit.
struct PositionReadout {
  Vec logits;                   ///< [vocab] the prediction's logits at the position
  std::vector<TokenScore> top;  ///< the k most probable at `temperature`
  std::vector<LensRow> lens;    ///< the lens, top lensK per row at T = 1
  int position = -1, lensK = 0;
  Mat streams;  ///< [layers + 1, d] the rows decoded: what a later readout compares to reuse the lens rows
};
PositionReadout readPosition(const Model& model, const Trace& trace, int position, int k, double temperature,
                             int lensK);
/// The same, copying from `previous` (a readout by the same model, checked by the caller) each lens row whose
/// stream is bit for bit the one decoded then: switching a head of layer L on or off decodes the rows after
/// layer L only, as one product (the rows before are the same streams). The copies equal a fresh decode to float
/// rounding (exactly, unless one row alone is decoded: W_U's single-row kernel sums in another order). Nothing is
/// copied for another position or lensK.
PositionReadout readPosition(const Model& model, const Trace& trace, int position, int k, double temperature, int lensK,
                             const PositionReadout& previous);

struct LensGrid {
  std::vector<int> positions;
  /// [(layers + 1) × positions]: row 0 the embeddings, row l + 1 the stream after layer l.
  Eigen::MatrixXi topId;
  MatD topProb;
};
/// The top-1 token and its probability per layer and position, for the given positions (empty: all).
/// One matrix product of (layers + 1)·|positions| rows by W_U.
LensGrid logitLensGrid(const Model& model, const Trace& trace, const std::vector<int>& positions = {});

}  // namespace attnlab
