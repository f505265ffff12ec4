#pragma once
// The attention-variant settings of the one parameter struct (Params::variants): which variants to
// compare and their parameters. The GUI's comparison view edits them, `attnlab dump --variants …`
// reads them, session files store them (params_json.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/variants/attention_variant.h"
#include "core/variants/performer.h"

namespace attnlab {

struct VariantSettings {
  /// Variants to compare, by name (see variantNames()).
  std::vector<std::string> names = {"softmax", "linear-elu", "linear-exp", "linear-relu", "performer"};
  double temperature = 1.0;                         ///< softmax and Performer: scores / T
  int features = 64;                                ///< Performer's m, 1..4096
  FeatureKind featureKind = FeatureKind::Positive;  ///< kind of the plain "performer" variant
  bool orthogonal = false;
  uint64_t featureSeed = 1;
  bool stabilize = true;      ///< max subtraction (exact) in Performer and φ = exp
  double epsilon = 0.0;       ///< Performer's additive ε on positive features (not exact)
  std::optional<int> window;  ///< local window |i − j| ≤ w on every variant; none when empty
  bool causal = false;        ///< causal mask on every variant (always on for a causal model)
  int topK = 2;               ///< k of the top-k sparsity metric
  int redraws = 8;            ///< R: feature redraws averaged in the Performer curve
};

inline constexpr int kMaxFeatures = 4096;

/// Every variant name, in display order:
/// softmax, softmax-unscaled, linear-elu, linear-exp, linear-relu, performer, performer-positive,
/// performer-trig.
const std::vector<std::string>& variantNames();

/// Throws InputError naming the first bad field, e.g. "variants.features must be between 1 and 4096,
/// got 0".
void validate(const VariantSettings& s);

/// The variant `name` with the settings' parameters; throws InputError for an unknown name.
VariantPtr makeVariant(const std::string& name, const VariantSettings& s);

/// The reference the errors are measured against: scaled softmax with the settings' temperature.
VariantPtr makeReference(const VariantSettings& s);

/// The mask the settings ask for; `modelCausal` forces the causal mask (a causal model's heads).
AttentionMask maskOf(const VariantSettings& s, bool modelCausal);

/// Splits "a,b,c" (spaces ignored) into names and checks each; throws InputError for an unknown one.
std::vector<std::string> parseVariantList(const std::string& list);

}  // namespace attnlab
