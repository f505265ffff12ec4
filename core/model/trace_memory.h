#pragma once
// What a trace holds in memory (issue 18: "memory is budgeted and shown"): the window's status line shows it
// next to the activation budget (trace.h) and the head-map cache's use.
#include <string>

#include "core/model/trace.h"

namespace attnlab {

/// Bytes of every matrix the trace keeps: the embeddings, each layer's streams, each head's q, k, v, output, kept
/// maps and summary thumbnails (the matrices' elements; not the token strings or the vectors' own overhead).
double traceBytes(const Trace& trace);

/// A size for people: "0 B", "512 B", "1.5 KB", "170 MB", "5.1 GB" (units of 1,024).
std::string humanBytes(double bytes);

}  // namespace attnlab
