#include "app/cli_commands.h"
#include "app/cli_predict_json.h"
#include "app/cli_progress.h"
#include "core/base/errors.h"
#include "core/predict/patching.h"
#include "core/run/model_factory.h"

#include <cstdio>

namespace attnlab::cli {

// attnlab.patch/1: the normalised effect of patching each head, and the residual stream at each layer and
// position, from the clean run into the corrupted one, on logit(target) − logit(versus) at the last token; --map
// asks for the heads or the positions alone, or for each head at each position; --ablate keeps heads switched off
// in every run.
int runPatch(const Args& args) {
  for (const char* name : {"clean", "corrupt", "target", "versus"})
    if (!args.has(name)) throw InputError(std::string("patch needs --") + name);
  const Params p = oneTextParamsFromArgs(args);
  const std::shared_ptr<const Model> model = makeModel(p);
  requireUnembedding(*model);
  const TokenizedText clean = model->tokenize(args.value("clean"));
  const TokenizedText corrupt = model->tokenize(args.value("corrupt"));
  const int target = resolveToken(*model, args.value("target"));
  const int versus = resolveToken(*model, args.value("versus"));
  PatchingOptions options;
  options.map = parsePatchMap(args.value("map", "all"), "--map");
  Trace other;  // resample ablation: the run of the other text, whose heads' outputs stand in
  if (args.has("ablate")) {
    options.ablation.ablate = parseHeadList(args.value("ablate"), "--ablate");
    options.ablation.mode = parseAblationMode(args.value("ablate-mode", "zero"), "--ablate-mode");
    if (options.ablation.mode == AblationMode::Resample) {
      if (!args.has("resample-text")) throw InputError("--ablate-mode resample needs --resample-text TEXT");
      other = model->forward(model->tokenize(args.value("resample-text")));
      options.ablation.resample = &other;
    }
  }
  StderrProgress progress("attnlab patch");  // minutes for a real-size model's full map
  RunControl control = progress.control();
  const PatchingResult r = activationPatching(*model, clean, corrupt, target, versus, control, options);
  nlohmann::json j = {{"schema", "attnlab.patch/1"},
                      {"target", tokenJson(*model, target)},
                      {"versus", tokenJson(*model, versus)},
                      {"clean_diff", r.cleanDiff},
                      {"corrupt_diff", r.corruptDiff},
                      {"map", patchMapName(r.map)},
                      {"first_difference", r.firstDifference},
                      {"runs", r.runs},
                      {"skipped", r.skipped}};
  if (r.heads.size() > 0) j["heads"] = matrixJson(r.heads);
  if (r.resid.size() > 0) j["resid"] = matrixJson(r.resid);
  if (r.headPositions.size() > 0) j["head_positions"] = matrixJson(r.headPositions);
  if (!options.ablation.ablate.empty()) {
    j["ablate"] = formatHeadList(options.ablation.ablate);
    j["ablate_mode"] = ablationModeName(options.ablation.mode);
    if (options.ablation.resample) j["resample_text"] = args.value("resample-text");
  }
  if (!r.warning.empty()) {
    j["warning"] = r.warning;
    std::fprintf(stderr, "attnlab patch: warning: %s\n", r.warning.c_str());
  }
  writeText(args.value("out"), jsonText(j, args.intValue("indent", -1, 0, 16)) + "\n");
  return 0;
}

}  // namespace attnlab::cli
