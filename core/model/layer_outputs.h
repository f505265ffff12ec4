#pragma once
// What a layer's attention and MLP add to the residual stream. A short input's trace keeps both; a long input's trace
// of GPT-2 or a decoder keeps neither (issue 18: 2·d floats per token and layer, 1.2 GB of SmolLM2-135M at 8,192
// tokens), and they are made again here when a view or an analysis reads them:
//   attention = concat·W_O (+ b_O), after Gemma 2/3's post-norm   (Model::attentionOutput, the forward pass's own code)
//   mlp       = output − input − attention                       (every such layer is x + attention + mlp)
// Both equal the forward pass's to float rounding (the MLP's to the rounding of the residual stream's size).
#include "core/model/trace.h"

namespace attnlab {

/// Rows [first, first + count) of layer `layer`'s attention output [count, d]: stored, or recomputed by
/// trace.outputsFrom from those rows of concat.
Mat attentionOutRows(const Trace& trace, int layer, Eigen::Index first, Eigen::Index count);
/// Rows [first, first + count) of the layer's MLP output [count, d]; [count, 0] for a layer without an MLP.
Mat mlpOutRows(const Trace& trace, int layer, Eigen::Index first, Eigen::Index count);

/// Every row: [n, d].
Mat attentionOutOf(const Trace& trace, int layer);
Mat mlpOutOf(const Trace& trace, int layer);

/// Whether the layer's outputs are recomputed (the trace keeps neither).
bool recomputesOutputs(const Trace& trace, int layer);

}  // namespace attnlab
