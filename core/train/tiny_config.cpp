#include "core/train/tiny_config.h"

#include "core/base/enum_names.h"
#include "core/base/errors.h"

namespace attnlab {

void validate(const TinyConfig& c) {
  auto range = [](const char* what, int v, int lo, int hi) {
    if (v < lo || v > hi)
      throw InputError(std::string(what) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                       " (got " + std::to_string(v) + ")");
  };
  range("vocabulary size", c.vocab, 4, 4096);
  range("context length", c.context, 2, 512);
  range("layers", c.layers, 1, 4);
  range("heads", c.heads, 1, 8);
  range("d_model", c.dModel, 2, 128);
  if (c.dModel % c.heads != 0)
    throw InputError("d_model (" + std::to_string(c.dModel) + ") must be divisible by the number of heads (" +
                     std::to_string(c.heads) + ")");
}

namespace {
// Canonical names first (nameOf returns the first match); then the spellings of the variants issue.
constexpr EnumNames<TinyAttention, 7> kAttentionNames{{{"softmax", TinyAttention::Softmax},
                                                       {"linear_elu", TinyAttention::LinearElu},
                                                       {"linear_exp", TinyAttention::LinearExp},
                                                       {"linear-elu", TinyAttention::LinearElu},
                                                       {"linear-exp", TinyAttention::LinearExp},
                                                       {"elu", TinyAttention::LinearElu},
                                                       {"exp", TinyAttention::LinearExp}}};
}  // namespace

const char* toString(TinyAttention a) { return nameOf(a, kAttentionNames); }

TinyAttention parseTinyAttention(const std::string& s) {
  return parseEnum(s, kAttentionNames, "trainable attention variant");
}

nlohmann::json toJson(const TinyConfig& c) {
  return {{"model_type", "attnlab-tiny"},
          {"vocab_size", c.vocab},
          {"n_positions", c.context},
          {"n_layer", c.layers},
          {"n_head", c.heads},
          {"n_embd", c.dModel},
          {"mlp", c.mlp},
          {"activation", c.relu ? "relu" : "gelu"},
          {"layer_norm", c.layerNorm},
          {"attention", toString(c.attention)},
          {"seed", c.seed}};
}

TinyConfig tinyConfigFromJson(const nlohmann::json& j, const std::string& name) {
  if (!j.is_object()) throw InputError(name + ": not a JSON object");
  TinyConfig c;
  auto intField = [&](const char* key, int& out) {
    if (!j.contains(key)) throw InputError(name + ": \"" + key + "\" is missing");
    if (!j[key].is_number_integer()) throw InputError(name + ": \"" + key + "\" must be an integer");
    const long long v = j[key].get<long long>();
    if (v < -1000000 || v > 1000000) throw InputError(name + ": \"" + key + "\" is out of range");
    out = static_cast<int>(v);
  };
  auto boolField = [&](const char* key, bool& out) {
    if (!j.contains(key)) return;
    if (!j[key].is_boolean()) throw InputError(name + ": \"" + key + "\" must be true or false");
    out = j[key].get<bool>();
  };
  intField("vocab_size", c.vocab);
  intField("n_positions", c.context);
  intField("n_layer", c.layers);
  intField("n_head", c.heads);
  intField("n_embd", c.dModel);
  boolField("mlp", c.mlp);
  boolField("layer_norm", c.layerNorm);
  if (j.contains("activation")) {
    const nlohmann::json& a = j["activation"];
    if (!a.is_string() || (a != "gelu" && a != "relu"))
      throw InputError(name + ": \"activation\" must be \"gelu\" or \"relu\"");
    c.relu = a == "relu";
  }
  if (j.contains("attention")) {
    if (!j["attention"].is_string()) throw InputError(name + ": \"attention\" must be a string");
    c.attention = parseTinyAttention(j["attention"].get<std::string>());
  }
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) throw InputError(name + ": \"seed\" must be a non-negative integer");
    c.seed = j["seed"].get<uint64_t>();
  }
  try {
    validate(c);
  } catch (const InputError& e) {
    throw InputError(name + ": " + e.what());
  }
  return c;
}

}  // namespace attnlab
