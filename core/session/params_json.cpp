#include "core/session/params_json.h"

#include <cmath>
#include <limits>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/session/token_pins.h"

namespace attnlab {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("params: " + path + " " + what);
}

const json* field(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

void readInt(const json& obj, const char* key, const std::string& prefix, int& out) {
  const json* f = field(obj, key);
  if (!f) return;
  if (!f->is_number_integer() && !(f->is_number_float() && std::floor(f->get<double>()) == f->get<double>()))
    fail(prefix + key, "must be an integer");
  const double v = f->get<double>();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) fail(prefix + key, "is out of range");
  out = static_cast<int>(v);
}

void readU64(const json& obj, const char* key, const std::string& prefix, uint64_t& out) {
  const json* f = field(obj, key);
  if (!f) return;
  if (f->is_number_unsigned()) {
    out = f->get<uint64_t>();
  } else if (f->is_number_integer() && f->get<int64_t>() >= 0) {
    out = static_cast<uint64_t>(f->get<int64_t>());
  } else {
    fail(prefix + key, "must be a non-negative integer");
  }
}

void readBool(const json& obj, const char* key, const std::string& prefix, bool& out) {
  const json* f = field(obj, key);
  if (!f) return;
  if (!f->is_boolean()) fail(prefix + key, "must be true or false");
  out = f->get<bool>();
}

void readString(const json& obj, const char* key, const std::string& prefix, std::string& out) {
  const json* f = field(obj, key);
  if (!f) return;
  if (!f->is_string()) fail(prefix + key, "must be a string");
  out = f->get<std::string>();
}

void readDouble(const json& obj, const char* key, const std::string& prefix, double& out) {
  const json* f = field(obj, key);
  if (!f) return;
  if (!f->is_number()) fail(prefix + key, "must be a number");
  out = f->get<double>();
}

template <typename E, typename Parse>
void readEnum(const json& obj, const char* key, const std::string& prefix, E& out, Parse parse) {
  std::string s;
  if (!field(obj, key)) return;
  readString(obj, key, prefix, s);
  try {
    out = parse(s);
  } catch (const InputError& e) {
    fail(prefix + key, std::string(": ") + e.what());
  }
}

void readConfigs(const json& obj, std::vector<StackConfig>& out) {
  const json* f = field(obj, "configs");
  if (!f) return;
  if (!f->is_array()) fail("collapse.configs", "must be an array of names");
  std::vector<StackConfig> configs;
  for (std::size_t i = 0; i < f->size(); ++i) {
    const std::string where = "collapse.configs[" + std::to_string(i) + "]";
    if (!(*f)[i].is_string()) fail(where, "must be a string");
    try {
      configs.push_back(parseStackConfig((*f)[i].get<std::string>()));
    } catch (const InputError& e) {
      fail(where, std::string(": ") + e.what());
    }
  }
  out = configs;
}

void readCollapse(const json& c, CollapseSettings& s) {
  if (!c.is_object()) fail("collapse", "must be an object");
  const std::string pre = "collapse.";
  readInt(c, "depth", pre, s.depth);
  readInt(c, "tokens", pre, s.tokens);
  readInt(c, "d_model", pre, s.dModel);
  readInt(c, "heads", pre, s.heads);
  readEnum(c, "init", pre, s.init, parseInitScheme);
  readDouble(c, "mlp_gain", pre, s.mlpGain);
  readInt(c, "seeds", pre, s.seeds);
  readU64(c, "seed", pre, s.seed);
  readConfigs(c, s.configs);
  readString(c, "variant", pre, s.variant);
  readEnum(c, "norm", pre, s.norm, parseResidualNorm);
  readEnum(c, "input", pre, s.input, parseCollapseInput);
  readInt(c, "path_samples", pre, s.pathSamples);
  readInt(c, "inspect_depth", pre, s.inspectDepth);
  readEnum(c, "inspect_config", pre, s.inspectConfig, parseStackConfig);
  try {
    validate(s);
  } catch (const InputError& e) {
    throw InputError(std::string("params: ") + e.what());
  }
}

void readVariants(const json& v, VariantSettings& s) {
  if (!v.is_object()) fail("variants", "must be an object");
  if (const json* names = field(v, "names")) {
    if (!names->is_array()) fail("variants.names", "must be an array of variant names");
    s.names.clear();
    for (const json& n : *names) {
      if (!n.is_string()) fail("variants.names", "must be an array of variant names");
      s.names.push_back(n.get<std::string>());
    }
  }
  readDouble(v, "temperature", "variants.", s.temperature);
  readInt(v, "features", "variants.", s.features);
  readEnum(v, "feature_kind", "variants.", s.featureKind, parseFeatureKind);
  readBool(v, "orthogonal", "variants.", s.orthogonal);
  readU64(v, "feature_seed", "variants.", s.featureSeed);
  readBool(v, "stabilize", "variants.", s.stabilize);
  readDouble(v, "epsilon", "variants.", s.epsilon);
  if (const json* w = field(v, "window")) {
    if (w->is_null()) {
      s.window.reset();
    } else {
      int value = 0;
      readInt(v, "window", "variants.", value);
      s.window = value;
    }
  }
  readBool(v, "causal", "variants.", s.causal);
  readInt(v, "top_k", "variants.", s.topK);
  readInt(v, "redraws", "variants.", s.redraws);
  try {
    validate(s);
  } catch (const InputError& e) {
    throw InputError(std::string("params: ") + e.what());
  }
}

/// The "spectra" object (issue 4's analyses); validated after reading.
void readSpectra(const json& s, SpectraSettings& out) {
  if (!s.is_object()) fail("spectra", "must be an object");
  if (const json* d = field(s, "rank_demo")) {
    if (!d->is_object()) fail("spectra.rank_demo", "must be an object");
    const std::string pre = "spectra.rank_demo.";
    readInt(*d, "n", pre, out.demo.n);
    readDouble(*d, "scale", pre, out.demo.scale);
    readU64(*d, "seed", pre, out.demo.seed);
    readDouble(*d, "sweep_min", pre, out.demo.sweepMin);
    readDouble(*d, "sweep_max", pre, out.demo.sweepMax);
    readInt(*d, "sweep_points", pre, out.demo.sweepPoints);
  }
  if (const json* f = field(s, "feature_maps")) {
    if (!f->is_object()) fail("spectra.feature_maps", "must be an object");
    const std::string pre = "spectra.feature_maps.";
    readInt(*f, "performer_features", pre, out.features.performerFeatures);
    readU64(*f, "performer_seed", pre, out.features.performerSeed);
    readBool(*f, "orthogonal", pre, out.features.orthogonal);
  }
  if (const json* h = field(s, "head_size")) {
    if (!h->is_object()) fail("spectra.head_size", "must be an object");
    const std::string pre = "spectra.head_size.";
    readInt(*h, "n", pre, out.headSize.n);
    readU64(*h, "seed", pre, out.headSize.seed);
    readInt(*h, "max_key_size", pre, out.headSize.maxKeySize);
  }
  validate(out);
}

}  // namespace

json toJson(const CollapseSettings& s) {
  json configs = json::array();
  for (StackConfig c : s.configs) configs.push_back(toString(c));
  return json{{"depth", s.depth},
              {"tokens", s.tokens},
              {"d_model", s.dModel},
              {"heads", s.heads},
              {"init", toString(s.init)},
              {"mlp_gain", s.mlpGain},
              {"seeds", s.seeds},
              {"seed", s.seed},
              {"configs", configs},
              {"variant", s.variant},
              {"norm", toString(s.norm)},
              {"input", toString(s.input)},
              {"path_samples", s.pathSamples},
              {"inspect_depth", s.inspectDepth},
              {"inspect_config", toString(s.inspectConfig)}};
}

json toJson(const VariantSettings& v) {
  return json{{"names", v.names},
              {"temperature", v.temperature},
              {"features", v.features},
              {"feature_kind", toString(v.featureKind)},
              {"orthogonal", v.orthogonal},
              {"feature_seed", v.featureSeed},
              {"stabilize", v.stabilize},
              {"epsilon", v.epsilon},
              {"window", v.window ? json(*v.window) : json(nullptr)},
              {"causal", v.causal},
              {"top_k", v.topK},
              {"redraws", v.redraws}};
}

json toJson(const SpectraSettings& s) {
  return json{{"rank_demo",
               {{"n", s.demo.n},
                {"scale", s.demo.scale},
                {"seed", s.demo.seed},
                {"sweep_min", s.demo.sweepMin},
                {"sweep_max", s.demo.sweepMax},
                {"sweep_points", s.demo.sweepPoints}}},
              {"feature_maps",
               {{"performer_features", s.features.performerFeatures},
                {"performer_seed", s.features.performerSeed},
                {"orthogonal", s.features.orthogonal}}},
              {"head_size", {{"n", s.headSize.n}, {"seed", s.headSize.seed}, {"max_key_size", s.headSize.maxKeySize}}}};
}

json toJson(const ModelConfig& c) {
  return json{{"d_model", c.dModel},      {"heads", c.heads},
              {"layers", c.layers},       {"seed", c.seed},
              {"mode", toString(c.mode)}, {"position", toString(c.position)},
              {"scale", c.scale},         {"causal", c.causal},
              {"skip", c.skip},           {"mlp", c.mlp},
              {"norm", toString(c.norm)}, {"activation", toString(c.activation)},
              {"max_tokens", c.maxTokens}};
}

namespace {

/// "pinned": an array of token indices, ≥ 0; sorted and made unique (a set, stored as a list).
std::vector<int> readPins(const json& pins) {
  if (!pins.is_array()) fail("selection.pinned", "must be an array of token indices");
  std::vector<int> out;
  for (const json& v : pins) {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 1000000)
      fail("selection.pinned", "must hold token indices (integers from 0), not " + v.dump());
    out.push_back(v.get<int>());
  }
  return normalizedPins(std::move(out));
}

json displayJson(const DisplaySettings& d) {
  return {{"colormap", d.colormap}, {"theme", d.theme}, {"attention_scale", d.attentionScale}};
}

}  // namespace

json toJson(const Params& p) {
  return json{{"schema", kParamsSchema},
              {"sentence", p.sentence},
              {"target", p.target},
              {"target_pending", p.targetPending},
              {"lowercase", p.lowercase},
              {"keep_last_tokens", p.keepLastTokens},
              {"model_dir", p.modelDir},
              {"model", toJson(p.model)},
              {"selection",
               {{"layer", p.selection.layer},
                {"head", p.selection.head},
                {"view", p.selection.view},
                {"pinned", p.selection.pinned},
                {"stack", p.selection.stack},
                {"cross", p.selection.cross}}},
              {"collapse", toJson(p.collapse)},
              {"variants", toJson(p.variants)},
              {"spectra", toJson(p.spectra)},
              {"prediction", toJson(p.prediction)},
              {"atlas", toJson(p.atlas)},
              {"display", displayJson(p.display)}};
}

Params paramsFromJson(const json& j, const Params& base) {
  if (!j.is_object()) throw InputError("params: expected a JSON object at the top level");
  Params p = base;
  if (const json* s = field(j, "schema")) {
    if (!s->is_string()) fail("schema", "must be a string");
    const std::string schema = s->get<std::string>();
    if (schema.rfind("attnlab.params/", 0) != 0) fail("schema", "is '" + schema + "', not attnlab.params/N");
    if (schema != kParamsSchema)
      fail("schema", "is '" + schema + "', newer than this program understands (" + kParamsSchema + ")");
  }
  readString(j, "sentence", "", p.sentence);
  readString(j, "target", "", p.target);
  if (field(j, "target")) p.targetPending.clear();  // the pending ids belong to the target they follow
  if (const json* t = field(j, "target_pending")) {
    if (!t->is_array()) fail("target_pending", "must be an array of token ids");
    p.targetPending.clear();
    for (const json& id : *t) {
      if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() > (1LL << 30))
        fail("target_pending", "must be an array of token ids (integers ≥ 0)");
      p.targetPending.push_back(id.get<int>());
    }
  }
  readBool(j, "lowercase", "", p.lowercase);
  readInt(j, "keep_last_tokens", "", p.keepLastTokens);
  if (p.keepLastTokens < 0) fail("keep_last_tokens", "must be 0 (refuse a text too long) or a token count");
  readString(j, "model_dir", "", p.modelDir);
  if (const json* m = field(j, "model")) {
    if (!m->is_object()) fail("model", "must be an object");
    ModelConfig& c = p.model;
    readInt(*m, "d_model", "model.", c.dModel);
    readInt(*m, "heads", "model.", c.heads);
    readInt(*m, "layers", "model.", c.layers);
    readU64(*m, "seed", "model.", c.seed);
    readEnum(*m, "mode", "model.", c.mode, parseMode);
    readEnum(*m, "position", "model.", c.position, parsePosition);
    readBool(*m, "scale", "model.", c.scale);
    readBool(*m, "causal", "model.", c.causal);
    readBool(*m, "skip", "model.", c.skip);
    readBool(*m, "mlp", "model.", c.mlp);
    readEnum(*m, "norm", "model.", c.norm, parseNorm);
    readEnum(*m, "activation", "model.", c.activation, parseActivation);
    readInt(*m, "max_tokens", "model.", c.maxTokens);
  }
  if (const json* s = field(j, "selection")) {
    if (!s->is_object()) fail("selection", "must be an object");
    readInt(*s, "layer", "selection.", p.selection.layer);
    readInt(*s, "head", "selection.", p.selection.head);
    readString(*s, "view", "selection.", p.selection.view);
    if (const json* pins = field(*s, "pinned")) p.selection.pinned = readPins(*pins);
    readString(*s, "stack", "selection.", p.selection.stack);
    if (p.selection.stack != "encoder" && p.selection.stack != "decoder" && p.selection.stack != "cross")
      fail("selection.stack", "must be \"encoder\", \"decoder\" or \"cross\", not \"" + p.selection.stack + "\"");
    readString(*s, "cross", "selection.", p.selection.cross);
    if (p.selection.cross != "heatmap" && p.selection.cross != "alignment")
      fail("selection.cross", "must be \"heatmap\" or \"alignment\", not \"" + p.selection.cross + "\"");
  }
  if (const json* c = field(j, "collapse")) readCollapse(*c, p.collapse);
  if (const json* v = field(j, "variants")) readVariants(*v, p.variants);
  if (const json* s = field(j, "spectra")) readSpectra(*s, p.spectra);
  if (const json* pr = field(j, "prediction")) readPredictionSettings(*pr, p.prediction);
  if (const json* a = field(j, "atlas")) readAtlasSettings(*a, p.atlas);
  if (const json* d = field(j, "display")) {
    if (!d->is_object()) fail("display", "must be an object");
    readString(*d, "colormap", "display.", p.display.colormap);
    readString(*d, "theme", "display.", p.display.theme);
    readString(*d, "attention_scale", "display.", p.display.attentionScale);
    try {
      validate(p.display);
    } catch (const InputError& e) {
      throw InputError(std::string("params: ") + e.what());
    }
  }
  return p;
}

json parseJsonText(const std::string& text, const std::string& what) {
  // nlohmann's parser recurses once per level: a session of a million '[' overflowed the stack.
  if (jsonNestingDepth(text) > kMaxJsonDepth)
    throw InputError(what + " is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels: not a session");
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(what + " is not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {  // e.g. out_of_range.406: a number beyond a double's range (found by fuzzing)
    throw InputError(what + " is not valid JSON (" + e.what() + ")");
  }
}

}  // namespace attnlab
