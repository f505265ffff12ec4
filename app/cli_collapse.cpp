// `attnlab collapse`: the rank-collapse figure as JSON (the public contract of issue 5):
//   {"depths": [0..L], "configs": {"san": {"median": [...], "min": [...], "max": [...]}, ...}, ...}
#include <iostream>

#include "app/cli_commands.h"
#include "core/base/errors.h"
#include "core/run/collapse_experiment.h"
#include "core/run/path_analysis.h"
#include "core/session/params_json.h"
#include "core/session/session.h"

namespace attnlab::cli {
namespace {

/// --params FILE (its "collapse" object and sentence), then every option on top.
Params collapseParams(const Args& a) {
  Params p;
  if (a.has("params")) p = paramsFromFile(a.value("params"), p);
  CollapseSettings& s = p.collapse;
  s.depth = a.intValue("depth", s.depth, 1, 128);
  s.tokens = a.intValue("tokens", s.tokens, 1, 512);
  s.dModel = a.intValue("d-model", s.dModel, 1, 1024);
  s.heads = a.intValue("heads", s.heads, 1, 64);
  s.seeds = a.intValue("seeds", s.seeds, 1, 64);
  if (a.has("seed")) s.seed = static_cast<uint64_t>(a.intValue("seed", 0, 0, 2147483647));
  if (a.has("init")) s.init = parseInitScheme(a.value("init"));
  if (a.has("mlp-gain")) s.mlpGain = a.doubleValue("mlp-gain", s.mlpGain, 0.01, 100);
  if (a.has("configs")) s.configs = parseStackConfigList(a.value("configs"));
  if (a.has("variant")) s.variant = a.value("variant");
  if (a.has("norm")) s.norm = parseResidualNorm(a.value("norm"));
  if (a.has("input")) s.input = parseCollapseInput(a.value("input"));
  if (a.has("sentence")) p.sentence = a.value("sentence");
  s.pathSamples = a.intValue("path-samples", s.pathSamples, 0, 256);
  validate(s);
  return p;
}

}  // namespace

const std::vector<Option>& collapseOptions() {
  static const std::vector<Option> options{
      {"params", true, "FILE.json: start from a session/params file (its \"collapse\" settings and sentence)"},
      {"depth", true, "L: layers of the deep stack, 1-128 (default 32)"},
      {"tokens", true, "N: tokens of the random inputs (default 32)"},
      {"d-model", true, "D: width (default 64)"},
      {"heads", true, "H: attention heads per layer, dividing D (default 4)"},
      {"init", true, "lecun|xavier|bert: weight initialisation (default lecun)"},
      {"mlp-gain", true,
       "G: the MLP's output weights G times larger, its Lipschitz constant G-fold (0.01-100, default 1)"},
      {"seeds", true, "S: runs per configuration; the curves are median, min and max over them (default 5)"},
      {"seed", true, "N: base seed of weights and inputs (default 1)"},
      {"configs", true, "san,san-skip,san-mlp,san-skip-mlp,post-ln,pre-ln,san-ln: which stacks (default all)"},
      {"variant", true, "NAME: attention variant (default softmax; the only one available in deep stacks so far)"},
      {"norm", true, "composite|fro: norm of the relative residual (default composite)"},
      {"input", true, "random|sentence: random N(0,1) inputs, or the embeddings of --sentence (default random)"},
      {"sentence", true, "TEXT: the sentence for --input sentence"},
      {"paths", false, "add the path analysis (\"paths\": path counts and rank-1 residuals of path products)"},
      {"path-samples", true, "N: random paths per length and seed for --paths (default 16)"},
      {"out", true, "FILE: where to write the JSON (default: standard output)"},
      {"indent", true, "N: pretty-print with N spaces (default: compact)"},
  };
  return options;
}

int runCollapse(const Args& args) {
  const Params p = collapseParams(args);
  nlohmann::json j = collapseToJson(attnlab::runCollapse(p));
  if (args.has("paths")) j["paths"] = pathsToJson(runPathAnalysis(p));
  const int indent = args.intValue("indent", -1, 0, 16);
  writeText(args.value("out"), jsonText(j, indent) + "\n");
  return 0;
}

}  // namespace attnlab::cli
