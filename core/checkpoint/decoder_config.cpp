#include "core/checkpoint/decoder_config.h"

#include <cmath>

#include "core/base/errors.h"
#include "core/checkpoint/config_fields.h"
#include "core/checkpoint/hf_config.h"

namespace attnlab {
namespace {

struct FamilyName {
  const char* modelType;
  DecoderFamily family;
};
constexpr FamilyName kFamilies[] = {{"llama", DecoderFamily::Llama},   {"mistral", DecoderFamily::Mistral},
                                    {"qwen2", DecoderFamily::Qwen2},   {"qwen3", DecoderFamily::Qwen3},
                                    {"gemma", DecoderFamily::Gemma},   {"gemma2", DecoderFamily::Gemma2},
                                    {"gemma3", DecoderFamily::Gemma3}, {"gemma3_text", DecoderFamily::Gemma3}};

bool isGemma(DecoderFamily f) {
  return f == DecoderFamily::Gemma || f == DecoderFamily::Gemma2 || f == DecoderFamily::Gemma3;
}

/// "rope_scaling": null, or {"rope_type" (or the older "type"): "linear" | "dynamic" | "llama3" | "default", …}.
RopeSpec readRope(const nlohmann::json& j, double theta, int maxPositions, const std::string& name) {
  RopeSpec r;
  r.theta = theta;
  r.maxPositions = maxPositions;
  if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return r;
  const nlohmann::json& s = j["rope_scaling"];
  if (!s.is_object()) throw InputError(name + ": \"rope_scaling\" must be an object or null, not " + s.dump());
  const nlohmann::json& t = s.contains("rope_type") ? s["rope_type"]
                            : s.contains("type")    ? s["type"]
                                                    : nlohmann::json();
  const std::string type = t.is_string() ? t.get<std::string>() : "";
  if (type == "default") return r;
  if (type != "linear" && type != "dynamic" && type != "llama3")
    throw InputError(name + ": rope_scaling type " + (type.empty() ? s.dump() : type) +
                     " is not supported (linear, dynamic, llama3)");
  r.factor = positiveField(s, "factor", 0.0, name);
  if (r.factor == 0.0) throw InputError(name + ": rope_scaling \"" + type + "\" needs a \"factor\"");
  if (s.contains("attention_factor") && !s["attention_factor"].is_null())
    throw InputError(name + ": rope_scaling attention_factor is not supported");
  if (type == "linear") r.scaling = RopeScaling::Linear;
  if (type == "dynamic") r.scaling = RopeScaling::Dynamic;
  if (type == "llama3") {
    r.scaling = RopeScaling::Llama3;
    r.lowFreqFactor = positiveField(s, "low_freq_factor", 1.0, name);
    r.highFreqFactor = positiveField(s, "high_freq_factor", 4.0, name);
    r.originalMaxPositions = intField(s, "original_max_position_embeddings", name, 1, kMaxConfigDim);
    if (r.highFreqFactor <= r.lowFreqFactor)
      throw InputError(name + ": rope_scaling high_freq_factor must exceed low_freq_factor");
  }
  return r;
}

GateActivation readActivation(const nlohmann::json& j, DecoderFamily f, const std::string& name) {
  // Gemma runs the tanh GELU whatever hidden_act says (its checkpoints say "gelu"); transformers reads
  // hidden_activation and falls back to gelu_pytorch_tanh.
  std::string s;
  if (isGemma(f))
    s = j.contains("hidden_activation") && j["hidden_activation"].is_string()
            ? j["hidden_activation"].get<std::string>()
            : "gelu_pytorch_tanh";
  else
    s = j.contains("hidden_act") && j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>() : "silu";
  if (s == "silu" || s == "swish") return GateActivation::Silu;
  if (s == "gelu_pytorch_tanh" || s == "gelu_new" || s == "gelu_fast") return GateActivation::GeluTanh;
  if (s == "gelu") return GateActivation::GeluErf;
  throw InputError(name + ": hidden activation \"" + s + "\" is not supported (silu, gelu_pytorch_tanh, gelu)");
}

/// The window of each layer from "layer_types" ("sliding_attention" / "full_attention") when present.
bool readLayerTypes(const nlohmann::json& j, int window, const std::string& name, DecoderSpec& d, int layers) {
  if (!j.contains("layer_types") || j["layer_types"].is_null()) return false;
  const nlohmann::json& t = j["layer_types"];
  if (!t.is_array() || static_cast<int>(t.size()) != layers)
    throw InputError(name + ": \"layer_types\" must list one type for each of the " + std::to_string(layers) +
                     " layers");
  for (int l = 0; l < layers; ++l) {
    const std::string s = t[l].is_string() ? t[l].get<std::string>() : t[l].dump();
    if (s != "sliding_attention" && s != "full_attention")
      throw InputError(name + ": layer type \"" + s + "\" is not supported (sliding_attention, full_attention)");
    const bool sliding = s == "sliding_attention";
    if (sliding && window <= 0)
      throw InputError(name + ": layer " + std::to_string(l) + " slides but \"sliding_window\" is not set");
    d.window[l] = sliding ? window : 0;
    d.usesLocalRope[l] = sliding;
  }
  return true;
}

void readWindows(const nlohmann::json& j, const std::string& name, DecoderSpec& d, int layers) {
  d.window.assign(static_cast<std::size_t>(layers), 0);
  d.usesLocalRope.assign(static_cast<std::size_t>(layers), false);
  const int window = intFieldOr(j, "sliding_window", 0, name, 1, 1 << 30);
  switch (d.family) {
    case DecoderFamily::Llama:
    case DecoderFamily::Gemma:
      return;
    case DecoderFamily::Mistral:
      d.window.assign(static_cast<std::size_t>(layers), window);
      return;
    case DecoderFamily::Qwen2:
    case DecoderFamily::Qwen3: {
      const int w = boolField(j, "use_sliding_window", false, name) ? window : 0;
      if (readLayerTypes(j, w, name, d, layers)) break;
      const int first = intFieldOr(j, "max_window_layers", layers, name, 0, kMaxConfigLayers);
      for (int l = first; l < layers; ++l) d.window[l] = w;
      break;
    }
    case DecoderFamily::Gemma2: {
      const int w = window > 0 ? window : 4096;
      if (readLayerTypes(j, w, name, d, layers)) break;
      for (int l = 0; l < layers; l += 2) d.window[l] = w;  // even layers slide
      break;
    }
    case DecoderFamily::Gemma3: {
      const int w = window > 0 ? window : 4096;
      if (readLayerTypes(j, w, name, d, layers)) break;
      const int pattern = intFieldOr(j, "sliding_window_pattern", 6, name, 1, kMaxConfigLayers);
      for (int l = 0; l < layers; ++l)
        if ((l + 1) % pattern != 0) d.window[l] = w, d.usesLocalRope[l] = true;
      break;
    }
  }
  if (d.family != DecoderFamily::Gemma3) d.usesLocalRope.assign(static_cast<std::size_t>(layers), false);
}

/// Fields that change the numbers in ways this program does not compute: refused by name.
void refuseUnsupported(const nlohmann::json& j, const std::string& name) {
  if (j.contains("partial_rotary_factor") && !j["partial_rotary_factor"].is_null() &&
      j["partial_rotary_factor"] != 1.0 && j["partial_rotary_factor"] != 1)
    throw InputError(name + ": partial_rotary_factor " + j["partial_rotary_factor"].dump() + " is not supported");
  if (j.contains("use_mrope") && j["use_mrope"] == true) throw InputError(name + ": use_mrope is not supported");
  if (j.contains("quantization_config")) throw InputError(name + ": quantized checkpoints are not supported");
  if (j.contains("num_experts") || j.contains("num_local_experts"))
    throw InputError(name + ": mixture-of-experts layers are not supported");
}

}  // namespace

const char* toString(DecoderFamily f) {
  for (const FamilyName& n : kFamilies)
    if (n.family == f) return n.modelType;
  return "?";
}

bool isDecoderModelType(const std::string& t) {
  for (const FamilyName& n : kFamilies)
    if (t == n.modelType) return true;
  return false;
}

void readDecoderConfig(const nlohmann::json& outer, const std::string& name, HfConfig& c) {
  std::string type = outer.at("model_type").get<std::string>();
  const bool wrapper = type == "gemma3" && outer.contains("text_config");
  const nlohmann::json& j = wrapper ? outer["text_config"] : outer;
  if (!j.is_object()) throw InputError(name + ": \"text_config\" is not an object");
  DecoderSpec& d = c.decoder;
  for (const FamilyName& n : kFamilies)
    if (type == n.modelType) d.family = n.family;
  d.multimodalWrapper = wrapper;
  refuseUnsupported(j, name);
  const bool gemma = isGemma(d.family);
  c.arch = HfArch::Decoder;
  c.dModel = intField(j, "hidden_size", name, 1, kMaxConfigDim);
  c.heads = intField(j, "num_attention_heads", name, 1, kMaxConfigDim);
  c.layers = intField(j, "num_hidden_layers", name, 1, kMaxConfigLayers);
  c.dInner = intField(j, "intermediate_size", name, 1, kMaxConfigDim);
  c.vocabSize = intField(j, "vocab_size", name, 1, kMaxConfigVocab);
  c.maxPositions = intFieldOr(j, "max_position_embeddings", gemma ? 8192 : 2048, name, 1, 1 << 30);
  d.kvHeads = intFieldOr(j, "num_key_value_heads", c.heads, name, 1, c.heads);
  if (c.heads % d.kvHeads != 0)
    throw InputError(name + ": " + std::to_string(c.heads) + " attention heads cannot share " +
                     std::to_string(d.kvHeads) + " key/value heads evenly");
  c.headDim = intFieldOr(j, "head_dim", gemma ? 256 : 0, name, 2, kMaxConfigDim);
  if (c.headDim == 0 && c.dModel % c.heads != 0)
    throw InputError(name + ": hidden_size " + std::to_string(c.dModel) + " is not divisible by the " +
                     std::to_string(c.heads) + " heads, and head_dim is not given");
  if (c.dHead() % 2 != 0) throw InputError(name + ": head_dim must be even for rotary embeddings");
  d.rmsEps = epsField(j, "rms_norm_eps", 1e-6, name);
  c.layerNormEps = d.rmsEps;
  d.normAddsOne = d.scaleEmbeddings = gemma;
  d.sandwichNorms = d.family == DecoderFamily::Gemma2 || d.family == DecoderFamily::Gemma3;
  d.qkNorm = d.family == DecoderFamily::Qwen3 || d.family == DecoderFamily::Gemma3;
  const bool attentionBias = boolField(j, "attention_bias", false, name);
  d.qkvBias = attentionBias || d.family == DecoderFamily::Qwen2;
  d.oBias = attentionBias;
  d.mlpBias = boolField(j, "mlp_bias", false, name);
  d.tiedEmbeddings = boolField(j, "tie_word_embeddings", gemma, name);
  d.activation = readActivation(j, d.family, name);
  const double queryScalar =
      d.sandwichNorms ? positiveField(j, "query_pre_attn_scalar", 256.0, name) : static_cast<double>(c.dHead());
  d.attnScale = 1.0 / std::sqrt(queryScalar);
  if (d.sandwichNorms) {
    d.attnSoftcap = positiveField(j, "attn_logit_softcapping", 0.0, name);
    d.finalSoftcap = positiveField(j, "final_logit_softcapping", 0.0, name);
    if (d.family == DecoderFamily::Gemma2) {  // Gemma 2's defaults when the fields are absent (not null)
      if (!j.contains("attn_logit_softcapping")) d.attnSoftcap = 50.0;
      if (!j.contains("final_logit_softcapping")) d.finalSoftcap = 30.0;
    }
  }
  const double theta = positiveField(j, "rope_theta", d.family == DecoderFamily::Gemma3 ? 1e6 : 10000.0, name);
  d.rope = readRope(j, theta, c.maxPositions, name);
  d.localRope = RopeSpec{};
  d.localRope.theta = positiveField(j, "rope_local_base_freq", 10000.0, name);
  readWindows(j, name, d, c.layers);
}

}  // namespace attnlab
