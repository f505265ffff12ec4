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
#include <nlohmann/json.hpp>

#include "core/base/json_stream.h"
#include "core/model/encdec_trace.h"
#include "core/model/trace_json.h"

namespace attnlab {

void writeEncDecTraceJson(JsonStreamWriter& out, const EncDecTrace& t, const nlohmann::json& config,
                          const TraceJsonOptions& options = {}, const nlohmann::json& extra = nlohmann::json::object());

}  // namespace attnlab
