#include "core/collapse/collapse_settings.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <utility>

#include "core/base/enum_names.h"
#include "core/base/errors.h"

namespace attnlab {
namespace {

const std::array<std::pair<const char*, StackConfig>, 7> kConfigs{{{"san", StackConfig::San},
                                                                   {"san-skip", StackConfig::SanSkip},
                                                                   {"san-mlp", StackConfig::SanMlp},
                                                                   {"san-skip-mlp", StackConfig::SanSkipMlp},
                                                                   {"post-ln", StackConfig::PostLn},
                                                                   {"pre-ln", StackConfig::PreLn},
                                                                   {"san-ln", StackConfig::SanLn}}};
const std::array<std::pair<const char*, StackConfig>, 7> kDisplayNames{
    {{"pure attention", StackConfig::San},
     {"attention + skip", StackConfig::SanSkip},
     {"attention + MLP", StackConfig::SanMlp},
     {"attention + skip + MLP", StackConfig::SanSkipMlp},
     {"transformer (post-LN)", StackConfig::PostLn},
     {"transformer (pre-LN)", StackConfig::PreLn},
     {"attention + LayerNorm", StackConfig::SanLn}}};
const std::array<std::pair<const char*, InitScheme>, 3> kInits{
    {{"lecun", InitScheme::LeCun}, {"xavier", InitScheme::Xavier}, {"bert", InitScheme::Bert}}};
const std::array<std::pair<const char*, ResidualNorm>, 2> kNorms{
    {{"composite", ResidualNorm::Composite}, {"fro", ResidualNorm::Frobenius}}};
const std::array<std::pair<const char*, CollapseInput>, 2> kInputs{
    {{"random", CollapseInput::Random}, {"sentence", CollapseInput::Sentence}}};

void check(bool ok, const std::string& field, const std::string& rule, long long got) {
  if (!ok) throw InputError("collapse." + field + " " + rule + " (got " + std::to_string(got) + ")");
}

}  // namespace

std::vector<StackConfig> CollapseSettings::allStackConfigs() {
  std::vector<StackConfig> all;
  for (const auto& [name, value] : kConfigs) all.push_back(value);
  return all;
}

void validate(const CollapseSettings& s) {
  check(s.depth >= 1 && s.depth <= 128, "depth", "must be between 1 and 128", s.depth);
  check(s.tokens >= 1 && s.tokens <= 512, "tokens", "must be between 1 and 512", s.tokens);
  check(s.dModel >= 1 && s.dModel <= 1024, "d_model", "must be between 1 and 1024", s.dModel);
  check(s.heads >= 1 && s.heads <= 64, "heads", "must be between 1 and 64", s.heads);
  check(s.dModel % s.heads == 0, "heads",
        "must divide collapse.d_model (" + std::to_string(s.dModel) + ") into equal heads", s.heads);
  if (!(s.mlpGain >= 0.01 && s.mlpGain <= 100))  // also refuses NaN
    throw InputError("collapse.mlp_gain must be between 0.01 and 100 (got " + std::to_string(s.mlpGain) + ")");
  check(s.seeds >= 1 && s.seeds <= 64, "seeds", "must be between 1 and 64", s.seeds);
  check(s.pathSamples >= 0 && s.pathSamples <= 256, "path_samples", "must be between 0 and 256", s.pathSamples);
  check(s.inspectDepth >= 0 && s.inspectDepth <= 128, "inspect_depth", "must be between 0 and 128", s.inspectDepth);
  if (s.configs.empty()) throw InputError("collapse.configs must name at least one configuration");
  for (std::size_t i = 0; i < s.configs.size(); ++i)
    if (std::find(s.configs.begin(), s.configs.begin() + i, s.configs[i]) != s.configs.begin() + i)
      throw InputError(std::string("collapse.configs lists '") + toString(s.configs[i]) + "' twice");
}

const char* toString(StackConfig c) { return nameOf(c, kConfigs); }
const char* toString(InitScheme i) { return nameOf(i, kInits); }
const char* toString(ResidualNorm n) { return nameOf(n, kNorms); }
const char* toString(CollapseInput i) { return nameOf(i, kInputs); }
const char* displayName(StackConfig c) { return nameOf(c, kDisplayNames); }
StackConfig parseStackConfig(const std::string& s) { return parseEnum(s, kConfigs, "configuration"); }
InitScheme parseInitScheme(const std::string& s) { return parseEnum(s, kInits, "init scheme"); }
ResidualNorm parseResidualNorm(const std::string& s) { return parseEnum(s, kNorms, "residual norm"); }
CollapseInput parseCollapseInput(const std::string& s) { return parseEnum(s, kInputs, "input kind"); }

std::vector<StackConfig> parseStackConfigList(const std::string& commaSeparated) {
  std::vector<StackConfig> out;
  std::stringstream in(commaSeparated);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const StackConfig c = parseStackConfig(item);
    if (std::find(out.begin(), out.end(), c) != out.end())
      throw InputError("configuration '" + item + "' is listed twice");
    out.push_back(c);
  }
  if (out.empty())
    throw InputError(
        "no configuration given (accepted: san, san-skip, san-mlp, san-skip-mlp, "
        "post-ln, pre-ln, san-ln)");
  return out;
}

}  // namespace attnlab
