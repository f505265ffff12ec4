#pragma once
// The Trace as JSON, the public contract of `attnlab dump`:
// {"schema": "attnlab.trace/1", "tokens": [...], "config": {...},
//  "layers": [{"heads": [{"q", "k", "v", "scores", "attention", "output"}], "residual_out", ...}]}
// Matrices are arrays of rows.
#include <nlohmann/json.hpp>

#include "core/base/tensor.h"
#include "core/model/trace.h"

namespace attnlab {

inline constexpr const char* kTraceSchema = "attnlab.trace/1";

nlohmann::json matrixToJson(const Mat& m);
nlohmann::json matrixToJson(const MatD& m);

/// `config` is whatever describes the model (the built-in's ModelConfig, a checkpoint's summary).
nlohmann::json traceToJson(const Trace& t, const nlohmann::json& config);

}  // namespace attnlab
