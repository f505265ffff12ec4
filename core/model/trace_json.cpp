#include "core/model/trace_json.h"

#include <cmath>

#include "core/model/trace_parts.h"

namespace attnlab {
namespace {

template <typename M>
nlohmann::json rowsOf(const M& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double v = static_cast<double>(m(i, j));
      // JSON has no infinities or NaN; null marks them so a reader sees the hole.
      row.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

/// The parts of one object as a tree; a part whose matrix is empty is left out.
void addParts(nlohmann::json& object, const std::vector<TracePart>& parts) {
  for (const TracePart& p : parts) {
    const Mat m = p.make();
    if (m.size() > 0) object[p.key] = rowsOf(m);
  }
}

void writeParts(JsonStreamWriter& out, const std::vector<TracePart>& parts) {
  for (const TracePart& p : parts) {
    const Mat m = p.make();
    if (m.size() == 0) continue;
    out.key(p.key);
    out.matrix(m);
  }
}

void writeLayers(JsonStreamWriter& out, const Trace& t, const TraceJsonOptions& options) {
  out.beginArray();
  for (const TraceLayerParts& layer : traceLayerParts(t, options)) {
    out.beginObject();
    if (layer.written) {
      writeParts(out, layer.beforeHeads);
      out.key("heads");
      out.beginArray();
      for (const std::vector<TracePart>& head : layer.heads) {
        out.beginObject();
        writeParts(out, head);
        out.endObject();
      }
      out.endArray();
      writeParts(out, layer.afterHeads);
    }
    out.endObject();
  }
  out.endArray();
}

}  // namespace

nlohmann::json matrixToJson(const Mat& m) { return rowsOf(m); }
nlohmann::json matrixToJson(const MatD& m) { return rowsOf(m); }

nlohmann::json traceToJson(const Trace& t, const nlohmann::json& config, const TraceJsonOptions& options,
                           const nlohmann::json& extra) {
  nlohmann::json j = traceSmallFields(t, config, extra);
  if (options.streams) j["embeddings"] = rowsOf(t.embeddings);
  nlohmann::json layers = nlohmann::json::array();
  for (const TraceLayerParts& layer : traceLayerParts(t, options)) {
    nlohmann::json lj = nlohmann::json::object();
    if (layer.written) {
      nlohmann::json heads = nlohmann::json::array();
      for (const std::vector<TracePart>& head : layer.heads) {
        nlohmann::json hj = nlohmann::json::object();
        addParts(hj, head);
        heads.push_back(std::move(hj));
      }
      lj["heads"] = std::move(heads);
      addParts(lj, layer.beforeHeads);
      addParts(lj, layer.afterHeads);
    }
    layers.push_back(std::move(lj));
  }
  j["layers"] = std::move(layers);
  return j;
}

void writeTraceJson(JsonStreamWriter& out, const Trace& t, const nlohmann::json& config,
                    const TraceJsonOptions& options, const nlohmann::json& extra) {
  const nlohmann::json small = traceSmallFields(t, config, extra);
  out.beginObject();
  for (const std::string& key : traceTopKeys(small, options)) {
    out.key(key);
    if (key == "embeddings")
      out.matrix(t.embeddings);
    else if (key == "layers")
      writeLayers(out, t, options);
    else
      out.value(small[key]);
  }
  out.endObject();
  out.finish();
}

}  // namespace attnlab
