#pragma once
// The trainable tiny transformer of the Training view (issue 8): a GPT-style causal decoder over a small
// token vocabulary. Shapes: vocab V, context T, width d, h heads of d/h, L layers.
//   x⁰ = E[tok] + P[pos]                                       [T, d]
//   per layer: a = LN₁(x) (or x);  Q, K, V = a·Wq, a·Wk, a·Wv   [T, d]
//              per head: A = attention(Q_h, K_h) (causal);  O_h = A·V_h
//              x += concat(O)·Wo;  with MLP: x += σ(LN₂(x)·W₁ + b₁)·W₂ + b₂, σ GELU or ReLU
//   logits = LN_f(x)·U                                         [T, V]
// Saved as config.json (model_type "attnlab-tiny") + model.safetensors (tiny_checkpoint.h), opened by makeModel.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab {

/// Reserved ids of every tiny vocabulary: BOS starts each sequence (the model's training data and typed
/// text alike), SEP separates a task's input from its answer; task symbols and words use the rest.
inline constexpr int kTinyBos = 0, kTinySep = 1, kTinyFirstSymbol = 2;

/// How a head turns queries and keys into attention weights. Every one is causal here (the model
/// predicts the next token). Linear: A_ij = φ(q_i)·φ(k_j) / Σ_{j'≤i} φ(q_i)·φ(k_j'), φ elu+1 or exp.
enum class TinyAttention { Softmax, LinearElu, LinearExp };

struct TinyConfig {
  int vocab = 128;
  int context = 33;  ///< longest sequence: rows of the position table
  int layers = 2;
  int heads = 4;
  int dModel = 64;
  bool mlp = false;       ///< attention-only by default: the induction-head setting
  bool relu = false;      ///< the MLP's non-linearity: ReLU, or GELU (tanh form) when false
  bool layerNorm = true;  ///< pre-LN before each sub-block and before the unembedding
  TinyAttention attention = TinyAttention::Softmax;
  uint64_t seed = 1;  ///< initial weights

  int dHead() const { return dModel / heads; }
  int dInner() const { return 4 * dModel; }
};

/// Throws InputError naming the first field out of range (layers 1–4, heads 1–8 dividing d, d ≤ 128, …).
void validate(const TinyConfig& c);

const char* toString(TinyAttention a);
/// Accepts "softmax", "linear_elu" (also "elu"), "linear_exp" (also "exp"); throws InputError listing them.
TinyAttention parseTinyAttention(const std::string& s);

/// config.json of a saved tiny model (model_type "attnlab-tiny"); parse throws InputError naming `name`.
nlohmann::json toJson(const TinyConfig& c);
TinyConfig tinyConfigFromJson(const nlohmann::json& j, const std::string& name);

}  // namespace attnlab
