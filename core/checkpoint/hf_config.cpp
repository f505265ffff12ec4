#include "core/checkpoint/hf_config.h"

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/config_fields.h"
#include "core/checkpoint/encdec_config.h"

namespace attnlab {
namespace {

constexpr std::int64_t kMaxDim = kMaxConfigDim, kMaxLayers = kMaxConfigLayers, kMaxVocab = kMaxConfigVocab;

HfActivation activationField(const nlohmann::json& j, const char* key, const char* fallback, const std::string& name) {
  const std::string s = j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
  if (s == "gelu_new" || s == "gelu_pytorch_tanh" || s == "gelu_fast") return HfActivation::GeluTanh;
  if (s == "gelu") return HfActivation::GeluErf;
  if (s == "relu") return HfActivation::Relu;
  throw InputError(name + ": activation \"" + s + "\" is not supported (gelu_new, gelu, relu)");
}

void readGpt2(const nlohmann::json& j, const std::string& name, HfConfig& c) {
  c.arch = HfArch::Gpt2;
  c.dModel = intField(j, "n_embd", name, 1, kMaxDim);
  c.heads = intField(j, "n_head", name, 1, kMaxDim);
  c.layers = intField(j, "n_layer", name, 1, kMaxLayers);
  c.maxPositions = intField(j, "n_positions", name, 1, kMaxDim);
  c.dInner = j.contains("n_inner") && !j["n_inner"].is_null() ? intField(j, "n_inner", name, 1, kMaxDim) : 4 * c.dModel;
  c.layerNormEps = epsField(j, "layer_norm_epsilon", 1e-5, name);
  c.activation = activationField(j, "activation_function", "gelu_new", name);
  c.scaleAttention = boolField(j, "scale_attn_weights", true, name);
  c.scaleByInverseLayer = boolField(j, "scale_attn_by_inverse_layer_idx", false, name);
}

void readBert(const nlohmann::json& j, const std::string& name, HfConfig& c) {
  c.arch = HfArch::Bert;
  c.dModel = intField(j, "hidden_size", name, 1, kMaxDim);
  c.heads = intField(j, "num_attention_heads", name, 1, kMaxDim);
  c.layers = intField(j, "num_hidden_layers", name, 1, kMaxLayers);
  c.dInner = intField(j, "intermediate_size", name, 1, kMaxDim);
  c.maxPositions = intField(j, "max_position_embeddings", name, 1, kMaxDim);
  // At least 1: with 0 the [2, d] token-type table was left unread and every token's embedding lacked its row.
  c.typeVocabSize = j.contains("type_vocab_size") ? intField(j, "type_vocab_size", name, 1, kMaxDim) : 2;
  c.layerNormEps = epsField(j, "layer_norm_eps", 1e-12, name);
  c.activation = activationField(j, "hidden_act", "gelu", name);
  const nlohmann::json& posField =
      j.contains("position_embedding_type") ? j["position_embedding_type"] : nlohmann::json();
  if (!posField.is_null() && !posField.is_string())
    throw InputError(name + ": \"position_embedding_type\" must be a string, not " + posField.dump());
  const std::string pos = posField.is_string() ? posField.get<std::string>() : std::string("absolute");
  if (pos != "absolute")
    throw InputError(name + ": position_embedding_type \"" + pos + "\" is not supported (only \"absolute\")");
}

void readDistilBert(const nlohmann::json& j, const std::string& name, HfConfig& c) {
  c.arch = HfArch::DistilBert;
  c.dModel = intField(j, "dim", name, 1, kMaxDim);
  c.heads = intField(j, "n_heads", name, 1, kMaxDim);
  c.layers = intField(j, "n_layers", name, 1, kMaxLayers);
  c.dInner = intField(j, "hidden_dim", name, 1, kMaxDim);
  c.maxPositions = intField(j, "max_position_embeddings", name, 1, kMaxDim);
  c.layerNormEps = 1e-12;  // hard-coded in Hugging Face's DistilBERT
  c.activation = activationField(j, "activation", "gelu", name);
}

}  // namespace

const char* toString(HfArch a) {
  switch (a) {
    case HfArch::Gpt2:
      return "GPT-2";
    case HfArch::Bert:
      return "BERT";
    case HfArch::DistilBert:
      return "DistilBERT";
    case HfArch::Decoder:
      return "decoder";
  }
  return "?";
}

HfConfig parseHfConfig(const nlohmann::json& j, const std::string& name) {
  if (!j.is_object()) throw InputError(name + ": not a JSON object");
  if (!j.contains("model_type") || !j["model_type"].is_string())
    throw InputError(name + ": \"model_type\" is missing (expected \"gpt2\", \"bert\", \"llama\", \"qwen2\", …)");
  HfConfig c;
  c.modelType = j["model_type"].get<std::string>();
  try {
    if (c.modelType == "gpt2")
      readGpt2(j, name, c);
    else if (c.modelType == "bert")
      readBert(j, name, c);
    else if (c.modelType == "distilbert")
      readDistilBert(j, name, c);
    else if (isDecoderModelType(c.modelType))
      readDecoderConfig(j, name, c);
    else if (isEncoderDecoderType(c.modelType))  // read by encdec_model.h (core/run/encdec_run opens them)
      throw InputError(
          name + ": model_type \"" + c.modelType +
          "\" is an encoder–decoder (a source and a target text): this reader takes one text; "
          "the window opens them as such, and attnlab dump, generate and predict with --source TEXT [--target TEXT]");
    else
      throw InputError(name + ": model_type \"" + c.modelType +
                       "\" is not supported (supported: gpt2, bert, distilbert, llama, mistral, qwen2, qwen3, gemma, "
                       "gemma2, gemma3)");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name + ": unexpected field type (" + e.what() + ")");
  }
  if (c.arch != HfArch::Decoder) c.vocabSize = intField(j, "vocab_size", name, 1, kMaxVocab);
  if (c.headDim == 0 && c.dModel % c.heads != 0)
    throw InputError(name + ": the model width " + std::to_string(c.dModel) + " is not divisible by the " +
                     std::to_string(c.heads) + " heads");
  return c;
}

HfConfig readHfConfig(const std::string& path) { return parseHfConfig(readJsonFile(path), path); }

}  // namespace attnlab
