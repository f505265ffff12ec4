#include "core/checkpoint/encdec_config.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/config_fields.h"

namespace attnlab {
namespace {

EncDecActivation activationOf(const std::string& s, const std::string& name) {
  if (s == "swish" || s == "silu") return EncDecActivation::Swish;
  if (s == "gelu") return EncDecActivation::GeluErf;
  if (s == "gelu_new" || s == "gelu_pytorch_tanh") return EncDecActivation::GeluTanh;
  if (s == "relu") return EncDecActivation::Relu;
  throw InputError(name + ": activation_function \"" + s + "\" is not supported (swish, gelu, gelu_new, relu)");
}

/// Flags that turn Marian/BART into pre-LN or other variants (mBART-style) whose numbers this program does not
/// compute: refused by name rather than silently run as post-LN.
void refuseTrue(const nlohmann::json& j, const char* key, const std::string& name) {
  if (j.contains(key) && j[key] == true)
    throw InputError(name + ": " + key + " = true is not supported (only the post-LN Marian/BART layout)");
}

}  // namespace

const char* toString(EncDecFamily f) {
  switch (f) {
    case EncDecFamily::Marian:
      return "marian";
    case EncDecFamily::Bart:
      return "bart";
    case EncDecFamily::T5:
      return "t5";
  }
  return "?";
}

int t5RelativeBucket(int rel, bool bidirectional, int buckets, int maxDistance) {
  int bucket = 0;
  if (bidirectional) {
    buckets /= 2;
    if (rel > 0) bucket += buckets;
    rel = std::abs(rel);
  } else {
    rel = -std::min(rel, 0);
  }
  const int maxExact = buckets / 2;
  if (rel < maxExact) return bucket + rel;
  const float large = std::log(static_cast<float>(rel) / static_cast<float>(maxExact)) /
                      static_cast<float>(std::log(static_cast<double>(maxDistance) / maxExact)) *
                      static_cast<float>(buckets - maxExact);
  return bucket + std::min(maxExact + static_cast<int>(large), buckets - 1);
}

namespace {

/// T5's fields (T5Config): num_layers, num_decoder_layers, num_heads, d_kv, d_ff, feed_forward_proj.
void readT5(const nlohmann::json& j, const std::string& name, EncDecConfig& c) {
  c.dModel = intField(j, "d_model", name, 1, kMaxConfigDim);
  c.encoderLayers = intField(j, "num_layers", name, 1, kMaxConfigLayers);
  c.decoderLayers = intFieldOr(j, "num_decoder_layers", c.encoderLayers, name, 1, kMaxConfigLayers);
  c.encoderHeads = c.decoderHeads = intField(j, "num_heads", name, 1, kMaxConfigDim);
  c.encoderHeadDim = c.decoderHeadDim = intField(j, "d_kv", name, 1, kMaxConfigDim);
  c.encoderFfn = c.decoderFfn = intField(j, "d_ff", name, 1, kMaxConfigDim);
  c.vocabSize = c.decoderVocabSize = intField(j, "vocab_size", name, 1, kMaxConfigVocab);
  c.maxPositions = static_cast<int>(kMaxConfigDim);  // relative positions: no table bounds the length
  c.decoderStartId = intFieldOr(j, "decoder_start_token_id", 0, name, 0, c.vocabSize - 1);
  c.eosId = intFieldOr(j, "eos_token_id", -1, name, -1, c.vocabSize - 1);
  c.padId = intFieldOr(j, "pad_token_id", -1, name, -1, c.vocabSize - 1);
  // At least 4 buckets and a distance past half of them: the encoder halves the buckets and the log-spaced ones start
  // at half of those; fewer made log(0/0) or a division by log(1) = 0, and a NaN bucket read outside the bias table.
  c.relativeBuckets = intFieldOr(j, "relative_attention_num_buckets", 32, name, 4, 1 << 16);
  c.relativeMaxDistance = intFieldOr(j, "relative_attention_max_distance", 128, name, 1, 1 << 24);
  if (c.relativeMaxDistance * 2 <= c.relativeBuckets)
    throw InputError(name + ": relative_attention_max_distance (" + std::to_string(c.relativeMaxDistance) +
                     ") must exceed half of relative_attention_num_buckets (" + std::to_string(c.relativeBuckets) +
                     ")");
  c.layerNormEps = epsField(j, "layer_norm_epsilon", 1e-6, name);
  c.tiedLmHead = boolField(j, "tie_word_embeddings", true, name);
  c.lmHeadScale = c.tiedLmHead ? 1.0 / std::sqrt(static_cast<double>(c.dModel)) : 1.0;
  c.preNormRms = true;
  const std::string ff = j.value("feed_forward_proj", std::string("relu"));
  if (ff == "relu") {
    c.activation = EncDecActivation::Relu;
  } else if (ff == "gated-gelu") {  // T5Config maps it to gelu_new
    c.activation = EncDecActivation::GeluTanh;
    c.gatedFfn = true;
  } else if (ff == "gated-relu") {
    c.activation = EncDecActivation::Relu;
    c.gatedFfn = true;
  } else {
    throw InputError(name + ": feed_forward_proj \"" + ff + "\" is not supported (relu, gated-gelu, gated-relu)");
  }
}

}  // namespace

bool isEncoderDecoderType(const std::string& t) {
  static const std::set<std::string> kTypes = {"marian",
                                               "bart",
                                               "t5",
                                               "mt5",
                                               "umt5",
                                               "mbart",
                                               "pegasus",
                                               "pegasus_x",
                                               "fsmt",
                                               "blenderbot",
                                               "blenderbot-small",
                                               "led",
                                               "longt5",
                                               "m2m_100",
                                               "nllb-moe",
                                               "plbart",
                                               "prophetnet",
                                               "switch_transformers",
                                               "bigbird_pegasus",
                                               "encoder-decoder",
                                               "whisper",
                                               "seamless_m4t"};
  return kTypes.count(t) > 0;
}

namespace {
void readGeneration(const std::string& configName, EncDecConfig& c) {
  const std::string dir = std::filesystem::path(configName).parent_path().string();
  c.generation = readGenerationRules(dir.empty() ? "." : dir, configName, c.decoderVocabSize, c.eosId);
}
}  // namespace

EncDecConfig readEncDecConfig(const std::string& name) {
  const nlohmann::json j = readJsonFile(name);
  if (!j.is_object() || !j.contains("model_type") || !j["model_type"].is_string())
    throw InputError(name + ": \"model_type\" is missing (expected \"marian\", \"bart\" or \"t5\")");
  EncDecConfig c;
  c.modelType = j["model_type"].get<std::string>();
  if (c.modelType == "marian") {
    c.family = EncDecFamily::Marian;
  } else if (c.modelType == "bart") {
    c.family = EncDecFamily::Bart;
  } else if (c.modelType == "t5") {
    c.family = EncDecFamily::T5;
    readT5(j, name, c);
    readGeneration(name, c);
    return c;
  } else if (isEncoderDecoderType(c.modelType)) {
    throw InputError(name + ": the encoder–decoder model_type \"" + c.modelType +
                     "\" is not supported (supported encoder–decoders: marian, bart, t5)");
  } else {
    throw InputError(name + ": model_type \"" + c.modelType +
                     "\" is not an encoder–decoder this program runs (supported: marian, bart, t5)");
  }
  refuseTrue(j, "normalize_before", name);
  refuseTrue(j, "add_final_layer_norm", name);
  refuseTrue(j, "add_bias_logits", name);
  refuseTrue(j, "normalize_embedding", name);
  c.dModel = intField(j, "d_model", name, 1, kMaxConfigDim);
  c.encoderLayers = intField(j, "encoder_layers", name, 1, kMaxConfigLayers);
  c.decoderLayers = intField(j, "decoder_layers", name, 1, kMaxConfigLayers);
  c.encoderHeads = intField(j, "encoder_attention_heads", name, 1, kMaxConfigDim);
  c.decoderHeads = intField(j, "decoder_attention_heads", name, 1, kMaxConfigDim);
  c.encoderFfn = intField(j, "encoder_ffn_dim", name, 1, kMaxConfigDim);
  c.decoderFfn = intField(j, "decoder_ffn_dim", name, 1, kMaxConfigDim);
  c.vocabSize = intField(j, "vocab_size", name, 1, kMaxConfigVocab);
  c.decoderVocabSize = intFieldOr(j, "decoder_vocab_size", c.vocabSize, name, 1, kMaxConfigVocab);
  c.maxPositions = intField(j, "max_position_embeddings", name, 1, kMaxConfigDim);
  c.decoderStartId = intField(j, "decoder_start_token_id", name, 0, c.decoderVocabSize - 1);
  c.eosId = intFieldOr(j, "eos_token_id", -1, name, -1, c.decoderVocabSize - 1);
  c.padId = intFieldOr(j, "pad_token_id", -1, name, -1, c.decoderVocabSize - 1);
  if (c.dModel % c.encoderHeads != 0 || c.dModel % c.decoderHeads != 0)
    throw InputError(name + ": d_model " + std::to_string(c.dModel) +
                     " is not a multiple of encoder_attention_heads / decoder_attention_heads");
  c.encoderHeadDim = c.dModel / c.encoderHeads;
  c.decoderHeadDim = c.dModel / c.decoderHeads;
  c.scaleEmbedding = boolField(j, "scale_embedding", false, name);
  c.tiedLmHead = boolField(j, "tie_word_embeddings", true, name);
  c.activation = activationOf(j.value("activation_function", std::string("gelu")), name);
  if (c.family == EncDecFamily::Marian) {
    c.sharedEmbeddings = boolField(j, "share_encoder_decoder_embeddings", true, name);
    c.sinusoidalPositions = true;
    if (c.sharedEmbeddings && c.decoderVocabSize != c.vocabSize)
      throw InputError(name + ": share_encoder_decoder_embeddings is true but decoder_vocab_size " +
                       std::to_string(c.decoderVocabSize) + " differs from vocab_size " + std::to_string(c.vocabSize));
    if (c.dModel % 2 != 0) throw InputError(name + ": d_model must be even for Marian's sinusoidal positions");
  } else {
    c.embeddingNorm = true;
    c.decoderVocabSize = c.vocabSize;
  }
  readGeneration(name, c);
  return c;
}

}  // namespace attnlab
