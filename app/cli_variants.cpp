#include "app/cli_variants.h"

#include "core/base/errors.h"

namespace attnlab::cli {

const std::vector<Option>& variantOptions() {
  static const std::vector<Option> options{
      {"variants", true,
       "LIST: attention variants to compare on the selected head, comma-separated: softmax, softmax-unscaled, "
       "linear-elu, linear-exp, linear-relu, performer, performer-positive, performer-trig"},
      {"features", true, "M: Performer's number of random features, 1..4096 (default 64)"},
      {"feature-kind", true, "positive|trig: Performer's features for the 'performer' variant (default positive)"},
      {"orthogonal", false, "orthogonal random features (blocks of orthonormal rows with chi_d norms)"},
      {"iid", false, "independent Gaussian random features (default)"},
      {"feature-seed", true, "S: seed of the random features (default 1)"},
      {"window", true, "W: keep only keys with |i - j| <= W, on every variant (default: no window)"},
      {"no-window", false, "no local window"},
      {"mask-causal", false, "causal mask on every variant (always on for a causal model)"},
      {"temperature", true, "T: softmax and Performer use scores / T (default 1)"},
      {"epsilon", true, "E: Performer's additive epsilon on positive features, not exact (default 0)"},
      {"no-stabilize", false, "no max subtraction in Performer and linear-exp (the plain computation)"},
      {"top-k", true, "K: the sparsity metric's k, the share of each row's mass in its K largest weights (default 2)"},
      {"redraws", true, "R: feature redraws averaged in the Performer curve (default 8)"},
  };
  return options;
}

void applyVariantArgs(const Args& a, VariantSettings& s) {
  if (a.has("variants")) s.names = parseVariantList(a.value("variants"));
  s.features = a.intValue("features", s.features, 1, kMaxFeatures);
  if (a.has("feature-kind")) s.featureKind = parseFeatureKind(a.value("feature-kind"));
  if (a.flags.count("orthogonal") && a.flags.count("iid"))
    throw InputError("--orthogonal and --iid exclude each other");
  if (a.flags.count("orthogonal")) s.orthogonal = true;
  if (a.flags.count("iid")) s.orthogonal = false;
  if (a.has("feature-seed")) s.featureSeed = static_cast<uint64_t>(a.intValue("feature-seed", 0, 0, 2147483647));
  if (a.has("window")) s.window = a.intValue("window", 0, 0, 1000000);
  if (a.flags.count("no-window")) s.window.reset();
  if (a.flags.count("mask-causal")) s.causal = true;
  s.temperature = a.doubleValue("temperature", s.temperature, 1e-6, 1e6);
  s.epsilon = a.doubleValue("epsilon", s.epsilon, 0, 1e6);
  if (a.flags.count("no-stabilize")) s.stabilize = false;
  s.topK = a.intValue("top-k", s.topK, 1, 1000000);
  s.redraws = a.intValue("redraws", s.redraws, 1, 1024);
  validate(s);
}

}  // namespace attnlab::cli
