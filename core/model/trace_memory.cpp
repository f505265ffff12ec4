#include "core/model/trace_memory.h"

#include <cstdio>
#include <unordered_set>

namespace attnlab {

namespace {

double bytesOf(const Mat& m) { return static_cast<double>(m.size()) * sizeof(float); }

}  // namespace

double traceBytes(const Trace& trace) {
  double bytes = bytesOf(trace.embeddings);
  std::unordered_set<const Mat*> shared;  // K and V held by several heads count once
  for (const LayerTrace& l : trace.layers) {
    for (const Mat* m : {&l.concat, &l.attentionOut, &l.mlpOut, &l.residualOut}) bytes += bytesOf(*m);
    for (const HeadTrace& h : l.heads) {
      for (const Mat* m :
           {&h.q, &h.scores, &h.attention, &h.summary.thumbMean, &h.summary.thumbMax, &h.summary.thumbSum})
        bytes += bytesOf(*m);
      bytes += static_cast<double>(h.summary.bandSums.size() * sizeof(double));
      for (const SharedMat& m : {h.keys, h.values})
        if (m && shared.insert(m.get()).second) bytes += bytesOf(*m);
    }
  }
  return bytes;
}

std::string humanBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  // Whole bytes as they are; one decimal below 10 of a unit ("1.5 KB", "5.1 GB"), none above ("170 MB").
  std::snprintf(text, sizeof text, unit == 0 || bytes >= 10.0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
  return text;
}

}  // namespace attnlab
