#pragma once
// config.json of a Hugging Face checkpoint, for the architectures the program runs:
//   gpt2       n_embd, n_head, n_layer, n_positions, n_inner (null → 4·n_embd), layer_norm_epsilon,
//              activation_function, scale_attn_weights, scale_attn_by_inverse_layer_idx
//   bert       hidden_size, num_attention_heads, num_hidden_layers, intermediate_size,
//              max_position_embeddings, type_vocab_size, layer_norm_eps, hidden_act
//   llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3: see decoder_config.h
//   distilbert dim, n_heads, n_layers, hidden_dim, max_position_embeddings, activation (LayerNorm ε 1e-12)
#include <string>

#include <nlohmann/json.hpp>

#include "core/checkpoint/decoder_config.h"

namespace attnlab {

enum class HfArch { Gpt2, Bert, DistilBert, Decoder };
enum class HfActivation { GeluTanh, GeluErf, Relu };

struct HfConfig {
  HfArch arch = HfArch::Gpt2;
  std::string modelType;  ///< as written: "gpt2", "bert", "distilbert"
  int vocabSize = 0;
  int dModel = 0, heads = 0, layers = 0;
  int dInner = 0;         ///< MLP hidden width
  int maxPositions = 0;   ///< rows of the position table: longest input
  int typeVocabSize = 0;  ///< BERT's token-type rows (0 when absent)
  double layerNormEps = 1e-5;
  HfActivation activation = HfActivation::GeluTanh;
  bool scaleAttention = true;        ///< divide scores by √d_head
  bool scaleByInverseLayer = false;  ///< GPT-2 option: also divide by (layer index + 1)

  int headDim = 0;      ///< explicit head_dim (decoders); 0 = d_model / heads
  DecoderSpec decoder;  ///< the decoder families' options (arch Decoder)

  int dHead() const { return headDim > 0 ? headDim : dModel / heads; }
};

/// Reads and validates config.json; `name` names the file in messages. Throws InputError
/// (malformed JSON, unknown model_type, missing or invalid field).
HfConfig parseHfConfig(const nlohmann::json& j, const std::string& name);
HfConfig readHfConfig(const std::string& path);

const char* toString(HfArch a);

}  // namespace attnlab
