#pragma once
// config.json of today's decoder families — llama (Llama 2/3.x, TinyLlama, SmolLM), mistral, qwen2, qwen3,
// gemma, gemma2, gemma3 (and gemma3_text) — read into one description that a single decoder
// implementation runs (DESIGN.md, Round two): norm kind, RoPE per layer, grouped-query heads, biases,
// q/k norms, MLP kind, soft-caps and the sliding window of every layer. Each field is read as Hugging Face
// transformers reads it, with its defaults; a field that changes the numbers and is not implemented is
// refused by name ("rope_scaling type yarn is not supported"), never ignored.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/rope.h"

namespace attnlab {

struct HfConfig;

enum class DecoderFamily { Llama, Mistral, Qwen2, Qwen3, Gemma, Gemma2, Gemma3 };
const char* toString(DecoderFamily f);

/// The MLP's gate non-linearity: SwiGLU (silu) or GeGLU (tanh GELU, exact GELU).
enum class GateActivation { Silu, GeluTanh, GeluErf };

struct DecoderSpec {
  DecoderFamily family = DecoderFamily::Llama;
  int kvHeads = 1;
  double rmsEps = 1e-6;
  bool normAddsOne = false;      ///< Gemma: RMSNorm multiplies by (1 + w)
  bool scaleEmbeddings = false;  ///< Gemma: embeddings × √d, rounded to the weights' dtype
  bool qkvBias = false, oBias = false, mlpBias = false;
  bool qkNorm = false;         ///< Qwen3, Gemma 3: RMSNorm over each head's q and k before RoPE
  bool sandwichNorms = false;  ///< Gemma 2/3: norms after attention and after the MLP too
  bool tiedEmbeddings = false;
  GateActivation activation = GateActivation::Silu;
  double attnScale = 1.0;    ///< multiplies Q·Kᵀ: head_dim^−½ or query_pre_attn_scalar^−½
  double attnSoftcap = 0.0;  ///< 0 = none
  double finalSoftcap = 0.0;
  RopeSpec rope;                    ///< global layers
  RopeSpec localRope;               ///< Gemma 3's sliding layers (rope_local_base_freq, no scaling)
  std::vector<int> window;          ///< per layer: sliding window W, 0 = full causal attention
  std::vector<bool> usesLocalRope;  ///< per layer
  bool multimodalWrapper = false;   ///< gemma3 config with text_config: weights under language_model.
};

/// True for the model types this file reads.
bool isDecoderModelType(const std::string& modelType);

/// Fills the common fields of `c` (sizes, vocab, positions, head_dim) and c.decoder from config.json.
/// Throws InputError naming the file and the field.
void readDecoderConfig(const nlohmann::json& j, const std::string& name, HfConfig& c);

}  // namespace attnlab
