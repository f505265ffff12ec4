#include "app/cli_commands.h"
#include "core/model_factory.h"
#include "core/pipeline.h"
#include "core/trace_json.h"

namespace attnlab::cli {

int runDump(const Args& args) {
  const Params p = paramsFromArgs(args);
  const PipelineResult r = runPipeline(p);
  checkSelection(p, r.trace);
  nlohmann::json j = traceToJson(r.trace, describeModel(p, *r.model));
  j["params"] =
      nlohmann::json::object({{"sentence", p.sentence}, {"layer", p.selection.layer}, {"head", p.selection.head}});
  const int indent = args.intValue("indent", -1, 0, 16);
  writeText(args.value("out"), j.dump(indent) + "\n");
  return 0;
}

}  // namespace attnlab::cli
