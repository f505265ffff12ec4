#pragma once
// Settings of the rank-collapse explorer (seeds/002, Dong, Cordonnier, Loukas 2021): a deep stack of
// attention layers in one of seven configurations, run from several seeds, measured layer by layer.
// A sub-struct of the one Params (params.h); serialised under "collapse" by params_json.cpp.
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

/// The architectures of the paper's Figure 2, one layer each (SA = multi-head self-attention,
/// MLP = x·W1 → GELU → ·W2 with hidden width 4·d, LN = LayerNorm with γ = 1, β = 0):
///   san           x ← SA(x)
///   san-skip      x ← x + SA(x)
///   san-mlp       x ← MLP(SA(x))
///   san-skip-mlp  x ← x + SA(x);      x ← x + MLP(x)
///   post-ln       x ← LN(x + SA(x));  x ← LN(x + MLP(x))
///   pre-ln        x ← x + SA(LN(x));  x ← x + MLP(LN(x))
///   san-ln        x ← LN(SA(x))
enum class StackConfig { San, SanSkip, SanMlp, SanSkipMlp, PostLn, PreLn, SanLn };

/// Weight initialisation: LeCun N(0, 1/fan_in), Xavier N(0, 2/(fan_in + fan_out)), BERT N(0, 0.02²).
enum class InitScheme { LeCun, Xavier, Bert };

/// How the relative residual ‖res(X)‖/‖X‖ is measured: the composite ‖M‖_{1,∞} = √(‖M‖₁‖M‖_∞) of
/// the authors' code, or Frobenius.
enum class ResidualNorm { Composite, Frobenius };

/// Inputs X_0: random N(0, 1) rows (new ones per seed), or the word embeddings of the current
/// sentence (the same for every seed; then only the weights vary).
enum class CollapseInput { Random, Sentence };

struct CollapseSettings {
  int depth = 32;   ///< layers L, 1–128
  int tokens = 32;  ///< n for random inputs (the sentence's length otherwise)
  int dModel = 64;
  int heads = 4;
  InitScheme init = InitScheme::LeCun;
  /// g: the MLP's output weights W2 are drawn g times larger, so MLP(x) = g·MLP₁(x) and its Lipschitz
  /// constant is g times that of the init alone. The paper's "MLPs slow the collapse" is a statement about
  /// that constant (its bound loosens as it grows), so whether an MLP slows it here depends on g. 0.01–100.
  double mlpGain = 1.0;
  int seeds = 5;      ///< runs per configuration; curves show median and min–max over them
  uint64_t seed = 1;  ///< base seed of weights and random inputs
  std::vector<StackConfig> configs = allStackConfigs();
  std::string variant = "softmax";  ///< attention variant (deep_stack.h lists what is available)
  ResidualNorm norm = ResidualNorm::Composite;
  CollapseInput input = CollapseInput::Random;
  int pathSamples = 16;  ///< random paths per length in the path analysis
  int inspectDepth = 3;  ///< layer whose X_l, singular values and attention the inspector shows
  StackConfig inspectConfig = StackConfig::San;

  static std::vector<StackConfig> allStackConfigs();
};

/// Throws InputError naming the first invalid field (e.g. "collapse.heads must divide collapse.d_model").
void validate(const CollapseSettings& s);

const char* toString(StackConfig c);    ///< "san", "san-skip", … (the command line's and JSON's names)
const char* toString(InitScheme i);     ///< "lecun", "xavier", "bert"
const char* toString(ResidualNorm n);   ///< "composite", "fro"
const char* toString(CollapseInput i);  ///< "random", "sentence"
/// A readable name for legends: "pure attention", "attention + skip", …
const char* displayName(StackConfig c);
/// Parsers throw InputError listing the accepted names.
StackConfig parseStackConfig(const std::string& s);
InitScheme parseInitScheme(const std::string& s);
ResidualNorm parseResidualNorm(const std::string& s);
CollapseInput parseCollapseInput(const std::string& s);
/// "san,san-skip,…" → configurations; duplicates and empty lists throw InputError.
std::vector<StackConfig> parseStackConfigList(const std::string& commaSeparated);

}  // namespace attnlab
