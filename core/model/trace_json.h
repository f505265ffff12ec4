#pragma once
// The Trace as JSON, the public contract of `attnlab dump`:
// {"schema": "attnlab.trace/1", "tokens": [...], "config": {...},
//  "layers": [{"heads": [{"q", "k", "v", "scores", "attention", "output"}], "residual_out", ...}]}
// Matrices are arrays of rows.
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/base/tensor.h"
#include "core/model/trace.h"

namespace attnlab {

inline constexpr const char* kTraceSchema = "attnlab.trace/1";

nlohmann::json matrixToJson(const Mat& m);
nlohmann::json matrixToJson(const MatD& m);

/// What a dump of a long input may leave out (`attnlab dump --only L.H,… --no-qkv`): every head keeps its place in
/// "heads"; a head outside `mapsOf` has no "scores" and "attention", and without `qkv` no head has "q", "k", "v".
struct TraceJsonOptions {
  bool allMaps = true;
  std::vector<std::pair<int, int>> mapsOf;  ///< (layer, head) whose maps are written when !allMaps
  bool qkv = true;
};

/// `config` is whatever describes the model (the built-in's ModelConfig, a checkpoint's summary).
nlohmann::json traceToJson(const Trace& t, const nlohmann::json& config, const TraceJsonOptions& options = {});

}  // namespace attnlab
