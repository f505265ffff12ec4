#pragma once
// Rung 7 of the teaching ladder (issue 33): the built-in model's rung-6 stack read as an encoder–decoder, with the
// built-in (random) weights. It shows the wiring of cross-attention, not a trained translation:
//   encoder, on the source [n_src, d]: the rung-6 blocks exactly as BuiltinModel runs them, no mask;
//   decoder, on the target [n_tgt, d]: the same layers' weights with a causal mask, and in each layer after the
//     self-attention sub-block a cross-attention sub-block with that layer's own Wq, Wk, Wv, Wo — Q from the target
//     stream, K and V from the encoder's final output [n_src, d] — placed as the self-attention sub-block is:
//       pre:  y ← y + SelfAttn(LN1(y));  y ← y + CrossAttn(LN1(y), enc);  y ← y + MLP(LN2(y))
//       post: y ← LN1(y + SelfAttn(y));  y ← LN1(y + CrossAttn(y, enc));  y ← LN2(y + MLP(y))
//       none: no LayerNorm; skip off: no "y +".
//     The cross sub-block reuses the self-attention sub-block's LayerNorm weights (LN1): the built-in layer has no
//     third LayerNorm, and with random weights a separate one would show nothing new.
// Both texts are embedded alike (hashed word vectors + positions from 0). The decoder reads the target's words with no
// start token: there is no output head, so no row predicts the next word and nothing is shifted right to make room.
#include <string>
#include <vector>

#include "core/model/builtin_model.h"
#include "core/model/encdec_trace.h"

namespace attnlab {

class BuiltinEncDec {
 public:
  /// Draws the weights as BuiltinModel does for `config` (any mode: read as rung 6); throws InputError as it does.
  explicit BuiltinEncDec(const ModelConfig& config, bool lowercase = true, const RunControl& control = {});
  /// Given weights (one entry per layer), e.g. a reference script's.
  BuiltinEncDec(const ModelConfig& config, std::vector<BuiltinLayerWeights> weights, bool lowercase = true);

  /// The rung-6 config the encoder runs: mode block, causal off, everything else as given.
  static ModelConfig encoderConfig(ModelConfig config);

  /// The encoder as a single-text model: rung 6 without a mask, the same weights and embeddings.
  const BuiltinModel& encoder() const { return encoder_; }
  const ModelConfig& config() const { return config_; }

  /// Both texts' traces (words as BuiltinModel::tokenize splits them). Throws InputError for an empty source or
  /// target ("type a target text") or one longer than max tokens.
  EncDecTrace forward(const std::vector<std::string>& source, const std::vector<std::string>& target,
                      const RunControl& control = {}) const;
  /// The same from given input rows (source [n_src, d], target [n_tgt, d]); tokens left empty.
  EncDecTrace forwardEmbeddings(const Mat& source, const Mat& target, const RunControl& control = {}) const;

 private:
  LayerTrace decoderLayer(int layer, const Mat& y, const Mat& encOut, CrossLayerTrace& cross) const;

  ModelConfig config_;  ///< as given (mode encdec)
  BuiltinModel encoder_;
};

}  // namespace attnlab
