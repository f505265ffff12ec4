#include "core/variants/variant_settings.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/errors.h"
#include "core/variants/linear_attention.h"

namespace attnlab {
namespace {

[[noreturn]] void fail(const std::string& field, const std::string& what) {
  throw InputError("variants." + field + " " + what);
}

std::string knownNames() {
  std::string s;
  for (const std::string& n : variantNames()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

const std::vector<std::string>& variantNames() {
  static const std::vector<std::string> names{
      "softmax",     "softmax-unscaled", "linear-elu",         "linear-exp",
      "linear-relu", "performer",        "performer-positive", "performer-trig"};
  return names;
}

void validate(const VariantSettings& s) {
  if (s.names.empty()) fail("names", "is empty: choose at least one of " + knownNames());
  for (const std::string& n : s.names)
    if (std::find(variantNames().begin(), variantNames().end(), n) == variantNames().end())
      fail("names", "has an unknown variant '" + n + "' (known: " + knownNames() + ")");
  if (!std::isfinite(s.temperature) || s.temperature <= 0)
    fail("temperature", "must be a positive finite number, got " + number(s.temperature));
  if (s.features < 1 || s.features > kMaxFeatures)
    fail("features", "(Performer's m) must be between 1 and " + std::to_string(kMaxFeatures) + ", got " +
                         std::to_string(s.features));
  if (!std::isfinite(s.epsilon) || s.epsilon < 0)
    fail("epsilon", "must be a finite number ≥ 0, got " + number(s.epsilon));
  if (s.window && *s.window < 0)
    fail("window", "must be ≥ 0 (keys with |i − j| ≤ window are kept), got " + std::to_string(*s.window));
  if (s.topK < 1) fail("top_k", "must be ≥ 1, got " + std::to_string(s.topK));
  if (s.redraws < 1 || s.redraws > 1024)
    fail("redraws", "must be between 1 and 1024, got " + std::to_string(s.redraws));
}

VariantPtr makeVariant(const std::string& name, const VariantSettings& s) {
  if (name == "softmax") return std::make_shared<SoftmaxAttention>(true, s.temperature);
  if (name == "softmax-unscaled") return std::make_shared<SoftmaxAttention>(false, s.temperature);
  if (name == "linear-elu") return std::make_shared<LinearAttention>(FeatureMap::EluPlusOne);
  if (name == "linear-exp") return std::make_shared<LinearAttention>(FeatureMap::Exp, s.stabilize);
  if (name == "linear-relu") return std::make_shared<LinearAttention>(FeatureMap::Relu);
  if (name.rfind("performer", 0) == 0) {
    PerformerConfig c;
    c.features = s.features;
    c.kind = name == "performer-positive" ? FeatureKind::Positive
             : name == "performer-trig"   ? FeatureKind::Trig
                                          : s.featureKind;
    if (name != "performer" && name != "performer-positive" && name != "performer-trig")
      throw InputError("unknown attention variant '" + name + "' (known: " + knownNames() + ")");
    c.orthogonal = s.orthogonal;
    c.seed = s.featureSeed;
    c.stabilize = s.stabilize;
    c.epsilon = s.epsilon;
    c.temperature = s.temperature;
    return std::make_shared<PerformerAttention>(c, name);
  }
  throw InputError("unknown attention variant '" + name + "' (known: " + knownNames() + ")");
}

VariantPtr makeReference(const VariantSettings& s) { return std::make_shared<SoftmaxAttention>(true, s.temperature); }

AttentionMask maskOf(const VariantSettings& s, bool modelCausal) {
  AttentionMask m;
  m.causal = s.causal || modelCausal;
  m.window = s.window ? *s.window : -1;
  return m;
}

std::vector<std::string> parseVariantList(const std::string& list) {
  std::vector<std::string> names;
  std::string cur;
  const auto flush = [&] {
    if (cur.empty()) return;
    if (std::find(variantNames().begin(), variantNames().end(), cur) == variantNames().end())
      throw InputError("unknown attention variant '" + cur + "' (known: " + knownNames() + ")");
    if (std::find(names.begin(), names.end(), cur) == names.end()) names.push_back(cur);
    cur.clear();
  };
  for (char c : list) {
    if (c == ',')
      flush();
    else if (c != ' ')
      cur += c;
  }
  flush();
  if (names.empty()) throw InputError("the variant list is empty (known: " + knownNames() + ")");
  return names;
}

}  // namespace attnlab
