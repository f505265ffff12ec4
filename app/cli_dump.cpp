#include <algorithm>
#include <sstream>

#include "app/cli_commands.h"
#include "app/cli_document_out.h"
#include "app/cli_encdec.h"
#include "app/cli_progress.h"
#include "core/base/errors.h"
#include "core/base/json_stream.h"
#include "core/model/trace_json.h"
#include "core/model/trace_npy.h"
#include "core/run/model_factory.h"
#include "core/run/pipeline.h"
#include "core/session/params_json.h"
#include "core/spectra/head_spectrum.h"
#include "core/spectra/spectrum_json.h"
#include "core/variants/variant_json.h"

namespace attnlab::cli {
namespace {

/// "5" or "0,5,11": layer indices, each checked against the model.
std::vector<int> parseLayerList(const std::string& list, int layers) {
  std::vector<int> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ',')) {
    std::size_t used = 0;
    int layer = -1;
    try {
      layer = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw InputError("--only-layers expects layers as L,L,... (e.g. 0,5), got '" + item + "'");
    if (layer < 0 || layer >= layers)
      throw InputError("--only-layers: layer " + std::to_string(layer) + " does not exist: the model has layers 0–" +
                       std::to_string(layers - 1));
    out.push_back(layer);
  }
  if (out.empty()) throw InputError("--only-layers names no layer");
  return out;
}

/// What the dump leaves out, from --only, --no-qkv, --no-streams and --only-layers.
TraceJsonOptions writtenParts(const Args& args, const Trace& trace) {
  TraceJsonOptions written;
  if (args.has("only-layers")) written.layers = parseLayerList(args.value("only-layers"), trace.layerCount());
  if (args.has("only")) {
    written.allMaps = false;
    for (const HeadRef& h : parseHeadList(args.value("only"), "--only")) {
      if (h.layer < 0 || h.layer >= trace.layerCount() || h.head < 0 || h.head >= trace.headCount())
        throw InputError("--only: head " + std::to_string(h.layer) + "." + std::to_string(h.head) +
                         " does not exist: the model has layers 0–" + std::to_string(trace.layerCount() - 1) +
                         " and heads 0–" + std::to_string(trace.headCount() - 1));
      const auto& ls = written.layers;
      if (!ls.empty() && std::find(ls.begin(), ls.end(), h.layer) == ls.end())
        throw InputError("--only: head " + std::to_string(h.layer) + "." + std::to_string(h.head) +
                         " is in a layer that --only-layers leaves out");
      written.mapsOf.emplace_back(h.layer, h.head);
    }
  }
  written.qkv = !args.has("no-qkv");
  written.streams = !args.has("no-streams");
  return written;
}

/// The top-level fields besides the trace: the parameters, and the selected head's variants and spectrum.
nlohmann::json extraFields(const Args& args, const Params& p, const PipelineResult& r) {
  nlohmann::json j = nlohmann::json::object();
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
  return j;
}

}  // namespace

int runDump(const Args& args) {
  if (!args.has("model")) {  // the built-in model's rung 7 reads two texts too
    Params p = paramsFromArgs(args);
    if (isBuiltinEncDec(p)) return runBuiltinEncDecDump(args, std::move(p));
  }
  if (hasSource(args)) return runEncDecDump(args);
  if (args.has("npy") && args.has("out")) throw InputError("give --out FILE or --npy DIR, not both");
  if (args.has("npy") && args.value("npy").empty()) throw InputError("--npy needs a folder");
  const Params p = oneTextParamsFromArgs(args);
  const PipelineResult r = runPipeline(p);
  checkSelection(p, r.trace);
  const TraceJsonOptions written = writtenParts(args, r.trace);
  const nlohmann::json extra = extraFields(args, p, r);
  const nlohmann::json config = describeModel(p, *r.model);
  const int indent = args.intValue("indent", -1, 0, 16);
  if (args.has("npy"))
    writeNpyFolder(args.value("npy"), indent,
                   [&](const NpyFileSink& file) { return traceToNpy(r.trace, config, written, extra, file); });
  else
    writeJsonDocument(args.value("out"), indent,
                      [&](JsonStreamWriter& json) { writeTraceJson(json, r.trace, config, written, extra); });
  return 0;
}

}  // namespace attnlab::cli
