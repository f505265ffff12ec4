#pragma once
// The copying score of every head's OV circuit (Elhage et al. 2021; DESIGN.md "Round two", head scores): with the
// x·W convention the circuit is the vocab × vocab matrix W_E·W_V^h·W_O^h·W_U (no norms, no biases); its non-zero
// eigenvalues are those of the cyclic d_head × d_head form W_O^h·G·W_V^h with G = W_U·W_E [d, d] (W_U as [d, vocab]),
// and copying = Σ Re λ / Σ |λ| ∈ [−1, 1] (1: the head raises the logits of the tokens it attends to).
#include "core/atlas/head_atlas.h"
#include "core/base/run_control.h"
#include "core/model/model.h"

namespace attnlab {

/// G = W_U·W_E [d, d] (vocab·d² multiply-adds, in float, by blocks of the vocabulary); empty for a model without an
/// embedding or an unembedding.
Mat tokenCircuit(const Model& model);

/// Σ Re λ / Σ |λ| over the eigenvalues of a square matrix; NaN when they are all 0.
double copyingScore(const MatD& circuit);

/// One score per head: [layer][head]; NaN everywhere for a model without the weights (the built-in model).
/// Cancelled through `control` between layers.
HeadGrid copyingScores(const Model& model, const RunControl& control = {});

}  // namespace attnlab
