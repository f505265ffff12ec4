#pragma once
// `attnlab dump --npy DIR`: the dump's matrices as .npy files (numpy.load reads them; float32, the trace's own
// precision, infinities and NaN kept as they are) and an index that is the dump's JSON document with every matrix
// replaced by {"npy": FILE, "shape": [rows, cols], "dtype": "float32"}; scalars and small fields stay in the index.
// Files: embeddings.npy, L<l>_<key>.npy (L5_residual_out.npy), L<l>_H<h>_<key>.npy (L5_H3_attention.npy).
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/trace.h"
#include "core/model/trace_json.h"

namespace attnlab {

/// Hands each file (its name in the folder, its bytes) to `write`, one at a time, and returns the index.
nlohmann::json traceToNpy(const Trace& t, const nlohmann::json& config, const TraceJsonOptions& options,
                          const nlohmann::json& extra,
                          const std::function<void(const std::string& name, const std::string& bytes)>& write);

}  // namespace attnlab
