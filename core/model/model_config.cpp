#include "core/model/model_config.h"

#include <array>
#include <utility>

#include "core/base/enum_names.h"
#include "core/base/errors.h"

namespace attnlab {
namespace {

const std::array<std::pair<const char*, Mode>, 7> kModes{{{"basic", Mode::Basic},
                                                          {"qkv", Mode::Qkv},
                                                          {"scaled", Mode::Scaled},
                                                          {"multihead", Mode::Multihead},
                                                          {"causal", Mode::Causal},
                                                          {"block", Mode::Block},
                                                          {"encdec", Mode::EncDec}}};
const std::array<std::pair<const char*, PositionKind>, 3> kPositions{
    {{"none", PositionKind::None}, {"learned", PositionKind::LearnedRandom}, {"sinusoidal", PositionKind::Sinusoidal}}};
const std::array<std::pair<const char*, NormPlacement>, 3> kNorms{
    {{"pre", NormPlacement::Pre}, {"post", NormPlacement::Post}, {"none", NormPlacement::None}}};
const std::array<std::pair<const char*, Activation>, 2> kActivations{
    {{"gelu", Activation::Gelu}, {"relu", Activation::Relu}}};

}  // namespace

EffectiveStructure resolve(const ModelConfig& c) {
  EffectiveStructure s{};
  s.projections = c.mode >= Mode::Qkv;
  s.heads = c.mode >= Mode::Multihead ? c.heads : 1;
  s.dHead = c.dModel / s.heads;
  s.outputProjection = c.mode >= Mode::Multihead;
  s.scale = c.mode >= Mode::Scaled && c.scale;
  // Rung 7's encoder is bidirectional whatever the switch says (a switched-on mask carried from rung 6 stays stored).
  s.causal = (c.causal && c.mode != Mode::EncDec) || c.mode == Mode::Causal;
  s.block = c.mode >= Mode::Block;
  s.skip = s.block && c.skip;
  s.mlp = s.block && c.mlp;
  s.norm = s.block ? c.norm : NormPlacement::None;
  return s;
}

void validate(const ModelConfig& c) {
  if (c.dModel < 1 || c.dModel > 4096)
    throw InputError("d_model must be between 1 and 4096 (got " + std::to_string(c.dModel) + ")");
  if (c.heads < 1 || c.heads > 256)
    throw InputError("heads must be between 1 and 256 (got " + std::to_string(c.heads) + ")");
  if (c.dModel % c.heads != 0)
    throw InputError("d_model (" + std::to_string(c.dModel) + ") must be divisible by the number of heads (" +
                     std::to_string(c.heads) + ")");
  if (c.layers < 1 || c.layers > 128)
    throw InputError("layers must be between 1 and 128 (got " + std::to_string(c.layers) + ")");
  if (c.maxTokens < 1 || c.maxTokens > 16384)
    throw InputError("max_tokens must be between 1 and 16384 (got " + std::to_string(c.maxTokens) + ")");
}

long long attentionParameterCount(const ModelConfig& c) {
  const EffectiveStructure s = resolve(c);
  const long long d = c.dModel;
  long long n = s.projections ? 3 * d * d : 0;
  if (s.outputProjection) n += d * d;
  return n;
}

const char* toString(Mode m) { return nameOf(m, kModes); }
const char* toString(PositionKind p) { return nameOf(p, kPositions); }
const char* toString(NormPlacement n) { return nameOf(n, kNorms); }
const char* toString(Activation a) { return nameOf(a, kActivations); }
Mode parseMode(const std::string& s) { return parseEnum(s, kModes, "mode"); }
PositionKind parsePosition(const std::string& s) { return parseEnum(s, kPositions, "position kind"); }
NormPlacement parseNorm(const std::string& s) { return parseEnum(s, kNorms, "LayerNorm placement"); }
Activation parseActivation(const std::string& s) { return parseEnum(s, kActivations, "activation"); }

}  // namespace attnlab
