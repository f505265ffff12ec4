#include "app/cli_commands.h"
#include "core/model/trace_json.h"
#include "core/run/model_factory.h"
#include "core/run/pipeline.h"
#include "core/session/params_json.h"
#include "core/spectra/head_spectrum.h"
#include "core/spectra/spectrum_json.h"
#include "core/variants/variant_json.h"

namespace attnlab::cli {

int runDump(const Args& args) {
  const Params p = paramsFromArgs(args);
  const PipelineResult r = runPipeline(p);
  checkSelection(p, r.trace);
  nlohmann::json j = traceToJson(r.trace, describeModel(p, *r.model));
  // The whole parameter file (attnlab.params/1), so `--params dump.json` re-runs the dump; "layer" and
  // "head" stay beside it for the scripts that read them (the older contract); --params ignores them.
  j["params"] = toJson(p);
  j["params"]["layer"] = p.selection.layer;
  j["params"]["head"] = p.selection.head;
  if (args.has("variants") || args.has("performer-curve")) {
    // The selected head's Q, K, V through every variant, in double (DESIGN.md: analysis precision).
    const HeadTrace& h = r.trace.layers[p.selection.layer].heads[p.selection.head];
    const MatD q = toDouble(h.q), k = toDouble(h.k), v = toDouble(h.v);
    j["variant_settings"] = toJson(p.variants);
    j["variants"] = toJson(compareVariants(q, k, v, p.variants, r.trace.causal));
    if (args.has("performer-curve")) j["performer_curve"] = toJson(performerCurve(q, k, p.variants, r.trace.causal));
  }
  if (args.has("spectrum")) {
    const HeadTrace& head = r.trace.layers[p.selection.layer].heads[p.selection.head];
    j["spectrum"] = headSpectrumToJson(headSpectrum(head, r.trace.causal));
  }
  const int indent = args.intValue("indent", -1, 0, 16);
  writeText(args.value("out"), j.dump(indent) + "\n");
  return 0;
}

}  // namespace attnlab::cli
