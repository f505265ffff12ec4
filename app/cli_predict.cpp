#include "app/cli_commands.h"
#include "app/cli_encdec.h"
#include "app/cli_predict_json.h"
#include "core/base/errors.h"
#include "core/predict/patching.h"
#include "core/run/pipeline.h"

namespace attnlab::cli {

// attnlab.predict/1: the top-k next tokens at a position, with the heads of --ablate switched off, and the
// logit lens there when asked.
int runPredict(const Args& args) {
  if (hasSource(args)) return runEncDecPredict(args);
  for (const char* two : {"ablate-encoder", "ablate-cross"})
    if (args.has(two)) throw InputError(std::string("--") + two + " needs an encoder–decoder's two texts (--source)");
  const Params p = paramsWithoutPosition(args);
  PipelineResult r = runPipeline(p);
  requireUnembedding(*r.model);
  const int position = positionArg(args, *r.model, r.trace);
  const int k = args.intValue("top", 10, 1, 1000);
  const double temperature = args.doubleValue("temperature", 1.0, 1e-3, 1e3);
  if (args.has("ablate")) {
    // --ablate runs from the plain model: a session's own ablated heads would be silently dropped.
    if (!p.prediction.ablate.empty())
      throw InputError(
          "the session (--params) already switches heads off: give the heads in the session or with "
          "--ablate, not both");
    Intervention iv;
    iv.ablate = parseHeadList(args.value("ablate"), "--ablate");
    iv.mode = parseAblationMode(args.value("ablate-mode", "zero"), "--ablate-mode");
    Trace other;  // resample: the run of the other text, whose heads' outputs stand in
    if (iv.mode == AblationMode::Resample) {
      if (!args.has("resample-text")) throw InputError("--ablate-mode resample needs --resample-text TEXT");
      other = r.model->forward(r.model->tokenize(args.value("resample-text")));
      iv.resample = &other;
    }
    r.trace = ablationEffect(*r.model, r.text, r.trace, iv, position).ablated;
  }
  nlohmann::json j = {{"schema", "attnlab.predict/1"},
                      {"tokens", r.trace.tokens},
                      {"token_ids", r.trace.tokenIds},
                      {"position", position},
                      {"top", scoresJson(predict(*r.model, r.trace, position, k, temperature))}};
  if (args.has("logit-lens")) {
    nlohmann::json lens = nlohmann::json::array();
    for (const LensRow& row : logitLens(*r.model, r.trace, position, k))
      lens.push_back({{"layer", row.layer}, {"top", scoresJson(row.top, false)}});
    j["logit_lens"] = lens;
  }
  writeText(args.value("out"), jsonText(j, args.intValue("indent", -1, 0, 16)) + "\n");
  return 0;
}

}  // namespace attnlab::cli
