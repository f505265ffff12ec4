#include "app/cli_commands.h"
#include "app/cli_predict_json.h"
#include "core/predict/attribution.h"
#include "core/run/pipeline.h"

namespace attnlab::cli {
namespace {

void putParts(nlohmann::json& j, const Attribution& a) {
  j["logit"] = a.logit;
  j["heads"] = matrixJson(a.heads);
  j["mlp"] = std::vector<double>(a.mlp.data(), a.mlp.data() + a.mlp.size());
  j["embeddings"] = a.embeddings;
  j["bias"] = a.bias;
}

}  // namespace

// attnlab.attribution/1: each head's and MLP's direct share of logit(target) at a position, with the final
// norm frozen there (core/predict/attribution.h); with --versus also of logit(target) − logit(versus).
int runAttribute(const Args& args) {
  const Params p = paramsWithoutPosition(args);
  const PipelineResult r = runPipeline(p);
  requireUnembedding(*r.model);
  const int position = positionArg(args, *r.model, r.trace);
  int target = -1;
  if (args.has("target")) {
    target = resolveToken(*r.model, args.value("target"));
  } else {
    const std::vector<TokenScore> top = predict(*r.model, r.trace, position, 1);  // throws on non-finite logits
    if (top.empty()) throw InputError("the model predicts no token at position " + std::to_string(position));
    target = top.front().id;
  }
  const int versus = args.has("versus") ? resolveToken(*r.model, args.value("versus")) : -1;
  const HeadContributions parts = headContributions(*r.model, r.text, r.trace, position);
  nlohmann::json j = {
      {"schema", "attnlab.attribution/1"}, {"position", position}, {"target", tokenJson(*r.model, target)}};
  putParts(j, directLogitAttribution(*r.model, r.trace, parts, target));
  if (versus >= 0) {
    nlohmann::json v = tokenJson(*r.model, versus);
    putParts(v, directLogitAttribution(*r.model, r.trace, parts, target, versus));
    j["versus"] = v;
  }
  writeText(args.value("out"), jsonText(j, args.intValue("indent", -1, 0, 16)) + "\n");
  return 0;
}

}  // namespace attnlab::cli
