#pragma once
// An EncDecTrace as the document of `attnlab dump --source … [--target …]` (issue 33), schema attnlab.trace/1 like
// one text's, written as a stream (one matrix at a time in memory):
//   {"schema", "config", "source_tokens", "source_ids", "tokens", "token_ids" (the decoder's input),
//    "encoder_layers": [{"heads": [{"q", "k", "v", "scores", "attention" [n_src, n_src], "output"}…],
//                        "attention_out", "concat", "mlp_out", "residual_in", "residual_out"}…],
//    "layers": [decoder layers as one text's (causal self-attention [n_tgt, n_tgt]) each with
//               "cross_heads": [{"q" [n_tgt, d_head], "k", "v" [n_src, d_head], "scores", "attention" [n_tgt, n_src],
//                                "output" [n_tgt, d_head]}…], "cross_concat", "cross_attention_out",
//               "cross_residual_out"],
//    "embeddings", "source_embeddings", and `extra`'s fields}
// Each object's keys sorted, as every writer of core/model/trace_parts.h keeps them. TraceJsonOptions apply to every
// stack: `mapsOf` (layer, head) names that head in the encoder, the decoder's self-attention and its cross-attention.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/json_stream.h"
#include "core/model/encdec_trace.h"
#include "core/model/trace_json.h"
#include "core/model/trace_parts.h"

namespace attnlab {

/// Cross-attention head `head` of decoder layer `layer`: q [n_tgt, d_head], k and v [n_src, d_head], the maps
/// [n_tgt, n_src] (when `options` writes them) and its output (cross concat's column block) [n_tgt, d_head].
std::vector<TracePart> crossHeadParts(const CrossLayerTrace& c, const TraceJsonOptions& options, int layer, int head);
/// A decoder layer's cross-attention streams ("attention_out", "concat", "residual_out"; written as "cross_…").
std::vector<TracePart> crossLayerParts(const CrossLayerTrace& c, const TraceJsonOptions& options);

/// The document's fields besides the matrices: schema, config, source_tokens, source_ids, tokens, token_ids and
/// `extra`'s.
nlohmann::json encDecSmallFields(const EncDecTrace& t, const nlohmann::json& config, const nlohmann::json& extra);

/// `attnlab dump --source … --npy DIR`: each matrix through `write` (file name, .npy bytes), one at a time; returns the
/// index: the document above with every matrix replaced by {"npy", "shape", "dtype"}. Files: source_embeddings.npy,
/// embeddings.npy, E<l>_<key>.npy and E<l>_H<h>_<key>.npy (encoder), L<l>_… (decoder), L<l>_X<h>_<key>.npy (cross
/// heads), L<l>_cross_<key>.npy.
nlohmann::json encDecTraceToNpy(const EncDecTrace& t, const nlohmann::json& config, const TraceJsonOptions& options,
                                const nlohmann::json& extra,
                                const std::function<void(const std::string& name, const std::string& bytes)>& write);

void writeEncDecTraceJson(JsonStreamWriter& out, const EncDecTrace& t, const nlohmann::json& config,
                          const TraceJsonOptions& options = {}, const nlohmann::json& extra = nlohmann::json::object());

}  // namespace attnlab
