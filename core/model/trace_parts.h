#pragma once
// What `attnlab dump` writes of a Trace, in the document's order, shared by its writers (a JSON tree, a JSON stream,
// a folder of .npy): each matrix with its key, made only when it is written (a long input's maps and its attention
// and MLP outputs are recomputed then, one at a time). Keys are sorted within each object, as nlohmann's objects
// keep them, so that every writer gives the same text.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/trace.h"
#include "core/model/trace_json.h"

namespace attnlab {

struct TracePart {
  std::string key;
  std::function<Mat()> make;  ///< an empty matrix: left out (a layer without an MLP has no "mlp_out")
};

struct TraceLayerParts {
  bool written = true;                        ///< false: the layer is an empty object (TraceJsonOptions::layers)
  std::vector<TracePart> beforeHeads;         ///< the layer's keys that sort before "heads"
  std::vector<std::vector<TracePart>> heads;  ///< each head's matrices
  std::vector<TracePart> afterHeads;          ///< the keys that sort after "heads"
};

std::vector<TraceLayerParts> traceLayerParts(const Trace& t, const TraceJsonOptions& options);

/// The document's top-level fields other than "embeddings" and "layers" (schema, tokens, token_ids, config, causal
/// and `extra`'s fields).
nlohmann::json traceSmallFields(const Trace& t, const nlohmann::json& config, const nlohmann::json& extra);

/// The top-level keys in the document's order: the small fields' and, where written, "embeddings" and "layers".
std::vector<std::string> traceTopKeys(const nlohmann::json& small, const TraceJsonOptions& options);

}  // namespace attnlab
