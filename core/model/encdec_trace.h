#pragma once
// What an encoder–decoder's forward pass over two texts computed (issue 33): the source text through the encoder
// (bidirectional self-attention, n_src rows) and the target text through the decoder (causal self-attention, n_tgt
// rows), each an ordinary Trace so every view of one stack can show either; the decoder's cross-attention, which
// has no place in a Trace, is kept beside it, one CrossLayerTrace per decoder layer.
#include <vector>

#include "core/model/trace.h"

namespace attnlab {

/// One decoder layer's cross-attention. Each head's HeadTrace holds q [n_tgt, d_head] (from the decoder's stream),
/// K and V [n_src, d_head] (from the encoder's output), scores and attention [n_tgt, n_src] (rows = target tokens,
/// columns = source tokens; options.causal false: every target token sees the whole source).
struct CrossLayerTrace {
  std::vector<HeadTrace> heads;
  Mat concat;        ///< the heads' outputs A·V side by side  [n_tgt, H·d_head]
  Mat attentionOut;  ///< concat·W_o + b: what cross-attention adds to the residual  [n_tgt, d]
  Mat residualOut;   ///< the stream after it (post-LN models: after encoder_attn_layer_norm)  [n_tgt, d]
};

/// Every head keeps its maps (translations are short). T5's self-attention scores include its relative position
/// bias, which HeadOptions cannot describe: head_maps.h would recompute such a map without it, so it is never dropped.
struct EncDecTrace {
  /// The source side: causal false; layers[l].mlpOut, attentionOut and residualOut as in any Trace.
  Trace encoder;
  /// The target side: causal true; layers[l].attentionOut is the self-attention's, residualOut the layer's output.
  Trace decoder;
  std::vector<CrossLayerTrace> cross;  ///< one per decoder layer
  /// The stacks' outputs [n, d]: the last layer's residualOut, after T5's final norm. encoderOut is what every
  /// cross-attention's K and V are made from; decoderOut what the logits are read from.
  Mat encoderOut, decoderOut;
  Mat logits;  ///< [n_tgt, target vocabulary]

  const Mat& encoderOutput() const { return encoderOut; }
};

}  // namespace attnlab
