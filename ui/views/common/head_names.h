#pragma once
// How views name a head of a grouped-query model (issue 31): which key/value head a query head reads, e.g.
// "L3H7 (kv 1)", in every view that names heads; a model without GQA (one kv head per query head) gets no note.
#include <QString>

#include "core/model/trace.h"

namespace attnlab::ui {

/// "L1H2": a head as every view and export names it, the CSV's label too (core/atlas headName) — never "0.10", which
/// reads as 0.1 (head 1), nor "L1 H2" in one view and "L1H2" in the next.
QString headLabel(int layer, int head);
/// " (kv g)", g = the kv head query head `head` reads, when the trace has fewer kv heads than heads; else empty.
QString kvSuffix(const Trace& trace, int head);

}  // namespace attnlab::ui
