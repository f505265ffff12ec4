#include "app/cli_commands.h"
#include "app/cli_progress.h"
#include "core/base/errors.h"
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
  TraceJsonOptions written;
  if (args.has("only")) {
    written.allMaps = false;
    const std::vector<HeadRef> only = parseHeadList(args.value("only"), "--only");
    for (const HeadRef& h : only) {
      if (h.layer < 0 || h.layer >= r.trace.layerCount() || h.head < 0 || h.head >= r.trace.headCount())
        throw InputError("--only: head " + std::to_string(h.layer) + "." + std::to_string(h.head) +
                         " does not exist: the model has layers 0–" + std::to_string(r.trace.layerCount() - 1) +
                         " and heads 0–" + std::to_string(r.trace.headCount() - 1));
      written.mapsOf.emplace_back(h.layer, h.head);
    }
  }
  written.qkv = !args.has("no-qkv");
  nlohmann::json j = traceToJson(r.trace, describeModel(p, *r.model), written);
  // The whole parameter file (attnlab.params/1), so `--params dump.json` re-runs the dump; "layer" and
  // "head" stay beside it for the scripts that read them (the older contract); --params ignores them.
  j["params"] = toJson(p);
  j["params"]["layer"] = p.selection.layer;
  j["params"]["head"] = p.selection.head;
  if (args.has("variants") || args.has("performer-curve")) {
    // The selected head's Q, K, V through every variant, in double (DESIGN.md: analysis precision).
    const HeadTrace& h = r.trace.layers[p.selection.layer].heads[p.selection.head];
    const MatD q = toDouble(h.q), k = toDouble(h.k()), v = toDouble(h.v());
    j["variant_settings"] = toJson(p.variants);
    j["variants"] = toJson(compareVariants(q, k, v, p.variants, r.trace.causal));
    if (args.has("performer-curve")) {
      StderrProgress progress("attnlab dump: performer curve");  // minutes on 2,048 tokens
      j["performer_curve"] = toJson(performerCurve(q, k, p.variants, r.trace.causal, kMaxFeatures, progress.control()));
    }
  }
  if (args.has("spectrum")) {
    const HeadTrace& head = r.trace.layers[p.selection.layer].heads[p.selection.head];
    j["spectrum"] = headSpectrumToJson(headSpectrum(head, r.trace.causal));
  }
  const int indent = args.intValue("indent", -1, 0, 16);
  writeText(args.value("out"), jsonText(j, indent) + "\n");
  return 0;
}

}  // namespace attnlab::cli
