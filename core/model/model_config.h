#pragma once
// Configuration of the built-in transformer and the teaching ladder of seeds/001 (transformers from
// scratch). Each Mode is one rung; a rung adds one idea to the previous one:
//   basic      w = softmax(X·Xᵀ), y = w·X             no parameters, one head, d_head = d_model
//   qkv        + Wq, Wk, Wv                             one head, d_head = d_model
//   scaled     + scores / √d_head                       (the `scale` toggle applies from here on)
//   multihead  + h heads of d_model/h and unifying Wo  3k² + k² attention parameters
//   causal     + causal mask (−∞ above the diagonal)
//   block      the full block: attention → residual → LayerNorm → MLP(4·d) → residual → LayerNorm,
//              with skip, MLP and LayerNorm placement switchable.
//   encdec     the block stack read as an encoder–decoder (issue 33, core/model/builtin_encdec.h): the rung-6
//              blocks on the source without a mask (the encoder), the same layers' weights on a target with a
//              causal mask and, in each layer, a cross-attention sub-block (Q from the target, K and V from
//              the encoder's output). Two texts: it runs through core/run/builtin_two_text.h.
#include <cstdint>
#include <string>

namespace attnlab {

enum class Mode { Basic, Qkv, Scaled, Multihead, Causal, Block, EncDec };
enum class PositionKind { None, LearnedRandom, Sinusoidal };
enum class NormPlacement { Pre, Post, None };
enum class Activation { Gelu, Relu };

struct ModelConfig {
  int dModel = 64;
  int heads = 4;
  int layers = 2;
  uint64_t seed = 42;
  Mode mode = Mode::Block;
  PositionKind position = PositionKind::Sinusoidal;
  bool scale = true;    ///< divide scores by √d_head (from the `scaled` rung on)
  bool causal = false;  ///< causal mask; always on at the `causal` rung, ignored at `encdec` (its own masks)
  bool skip = true;     ///< residual connections (block mode)
  bool mlp = true;      ///< MLP sub-block (block mode)
  NormPlacement norm = NormPlacement::Pre;  ///< LayerNorm placement (block mode)
  Activation activation = Activation::Gelu;
  int maxTokens = 2048;  ///< refuse longer inputs: the full trace is O(layers·heads·n²)
};

/// The structure a config resolves to, after the mode's rung is applied. Everything downstream reads
/// this, so the ladder's rules live in one place.
struct EffectiveStructure {
  bool projections;  ///< Wq, Wk, Wv present
  int heads;         ///< 1 below the multihead rung
  int dHead;
  bool outputProjection;  ///< Wo present
  bool scale;
  bool causal;  ///< at `encdec`: false, the encoder's (the decoder masks on its own)
  bool block;   ///< residual / LayerNorm / MLP structure present (the `block` and `encdec` rungs)
  bool skip;
  bool mlp;
  NormPlacement norm;
};

EffectiveStructure resolve(const ModelConfig& c);

/// Throws InputError naming the first invalid field.
void validate(const ModelConfig& c);

/// Attention parameters of one layer: 3·d² for Wq, Wk, Wv (however many heads), plus d² for Wo.
long long attentionParameterCount(const ModelConfig& c);

const char* toString(Mode m);
const char* toString(PositionKind p);
const char* toString(NormPlacement n);
const char* toString(Activation a);
/// Parsers throw InputError listing the accepted names.
Mode parseMode(const std::string& s);
PositionKind parsePosition(const std::string& s);
NormPlacement parseNorm(const std::string& s);
Activation parseActivation(const std::string& s);

}  // namespace attnlab
