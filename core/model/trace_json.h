#pragma once
// The Trace as JSON, the public contract of `attnlab dump`:
// {"schema": "attnlab.trace/1", "tokens": [...], "config": {...},
//  "layers": [{"heads": [{"q", "k", "v", "scores", "attention", "output"}], "residual_out", ...}]}
// Matrices are arrays of rows. Three writers give the same document: a tree (traceToJson), a stream of text that
// never holds the document (writeTraceJson, for gigabytes of a long input), and a folder of .npy files with an index
// (core/model/trace_npy.h); what each writes is one list (core/model/trace_parts.h).
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/base/json_stream.h"
#include "core/base/tensor.h"
#include "core/model/trace.h"

namespace attnlab {

inline constexpr const char* kTraceSchema = "attnlab.trace/1";

nlohmann::json matrixToJson(const Mat& m);
nlohmann::json matrixToJson(const MatD& m);

/// What a dump of a long input may leave out (`attnlab dump --only L.H,… --no-qkv --no-streams --only-layers L,…`):
/// every layer and head keeps its place in "layers" and "heads"; a head outside `mapsOf` has no "scores" and
/// "attention", and without `qkv` no head has "q", "k", "v".
struct TraceJsonOptions {
  bool allMaps = true;
  std::vector<std::pair<int, int>> mapsOf;  ///< (layer, head) whose maps are written when !allMaps
  bool qkv = true;
  /// false: no "embeddings", no layer's "residual_in", "concat", "attention_out", "mlp_out", "residual_out", no
  /// head's "output" — what is left of 1,024 GPT-2 tokens is the chosen maps (MBs instead of a GB).
  bool streams = true;
  /// Not empty: only these layers are written; every other layer is an empty object {} in "layers".
  std::vector<int> layers;
};

/// `config` is whatever describes the model (the built-in's ModelConfig, a checkpoint's summary). `extra`'s fields
/// (an object: the parameters, variants, spectrum …) join the document's top level.
nlohmann::json traceToJson(const Trace& t, const nlohmann::json& config, const TraceJsonOptions& options = {},
                           const nlohmann::json& extra = nlohmann::json::object());

/// The same document as traceToJson written to `out` as it is made: one matrix at a time in memory.
void writeTraceJson(JsonStreamWriter& out, const Trace& t, const nlohmann::json& config,
                    const TraceJsonOptions& options = {}, const nlohmann::json& extra = nlohmann::json::object());

}  // namespace attnlab
