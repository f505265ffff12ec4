#include "app/cli_commands.h"
#include "app/cli_predict_json.h"
#include "core/base/errors.h"
#include "core/predict/patching.h"
#include "core/run/model_factory.h"

namespace attnlab::cli {

// attnlab.patch/1: the normalised effect of patching each head, and the residual stream at each layer and
// position, from the clean run into the corrupted one, on logit(target) − logit(versus) at the last token.
int runPatch(const Args& args) {
  for (const char* name : {"clean", "corrupt", "target", "versus"})
    if (!args.has(name)) throw InputError(std::string("patch needs --") + name);
  const Params p = paramsFromArgs(args);
  const std::shared_ptr<const Model> model = makeModel(p);
  requireUnembedding(*model);
  const TokenizedText clean = model->tokenize(args.value("clean"));
  const TokenizedText corrupt = model->tokenize(args.value("corrupt"));
  const int target = resolveToken(*model, args.value("target"));
  const int versus = resolveToken(*model, args.value("versus"));
  const PatchingResult r = activationPatching(*model, clean, corrupt, target, versus);
  const nlohmann::json j = {{"schema", "attnlab.patch/1"},         {"target", tokenJson(*model, target)},
                            {"versus", tokenJson(*model, versus)}, {"heads", matrixJson(r.heads)},
                            {"resid", matrixJson(r.resid)},        {"clean_diff", r.cleanDiff},
                            {"corrupt_diff", r.corruptDiff}};
  writeText(args.value("out"), jsonText(j, args.intValue("indent", -1, 0, 16)) + "\n");
  return 0;
}

}  // namespace attnlab::cli
