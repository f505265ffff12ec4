#include "core/model/encdec_trace_json.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "core/model/head_maps.h"
#include "core/model/trace_parts.h"

namespace attnlab {
namespace {

/// One key of an object and what writes its value.
struct Entry {
  std::string key;
  std::function<void()> write;
};

void writeObject(JsonStreamWriter& out, std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  out.beginObject();
  for (const Entry& e : entries) {
    out.key(e.key);
    e.write();
  }
  out.endObject();
}

/// The parts as entries; a part whose matrix is empty is left out (made here to know: a kept trace's are cheap).
void addParts(std::vector<Entry>& entries, JsonStreamWriter& out, const std::vector<TracePart>& parts,
              const std::string& prefix = {}) {
  for (const TracePart& p : parts) {
    Mat m = p.make();
    if (m.size() == 0) continue;
    entries.push_back({prefix + p.key, [&out, m = std::move(m)] { out.matrix(m); }});
  }
}

bool mapsWritten(const TraceJsonOptions& o, int layer, int head) {
  const auto& only = o.mapsOf;
  return o.allMaps || std::find(only.begin(), only.end(), std::make_pair(layer, head)) != only.end();
}

void writeHeadArray(JsonStreamWriter& out, const std::vector<std::vector<TracePart>>& heads) {
  out.beginArray();
  for (const std::vector<TracePart>& head : heads) {
    std::vector<Entry> entries;
    addParts(entries, out, head);
    writeObject(out, std::move(entries));
  }
  out.endArray();
}

void writeLayers(JsonStreamWriter& out, const Trace& t, const std::vector<CrossLayerTrace>* cross,
                 const TraceJsonOptions& o) {
  const std::vector<TraceLayerParts> layers = traceLayerParts(t, o);
  out.beginArray();
  for (std::size_t li = 0; li < layers.size(); ++li) {
    const TraceLayerParts& layer = layers[li];
    std::vector<Entry> entries;
    if (layer.written) {
      addParts(entries, out, layer.beforeHeads);
      addParts(entries, out, layer.afterHeads);
      entries.push_back({"heads", [&out, &layer] { writeHeadArray(out, layer.heads); }});
      if (cross) {
        const CrossLayerTrace& c = (*cross)[li];
        std::vector<std::vector<TracePart>> heads;
        for (int hi = 0; hi < static_cast<int>(c.heads.size()); ++hi)
          heads.push_back(crossHeadParts(c, o, static_cast<int>(li), hi));
        entries.push_back({"cross_heads", [&out, heads = std::move(heads)] { writeHeadArray(out, heads); }});
        addParts(entries, out, crossLayerParts(c, o), "cross_");
      }
    }
    writeObject(out, std::move(entries));
  }
  out.endArray();
}

}  // namespace

std::vector<TracePart> crossHeadParts(const CrossLayerTrace& l, const TraceJsonOptions& o, int li, int hi) {
  const HeadTrace& h = l.heads[static_cast<size_t>(hi)];
  std::vector<TracePart> parts;
  if (o.qkv) {
    parts.push_back({"q", [&h] { return Mat(h.q); }});
    parts.push_back({"k", [&h] { return Mat(h.k()); }});
    parts.push_back({"v", [&h] { return Mat(h.v()); }});
  }
  if (mapsWritten(o, li, hi)) {
    parts.push_back({"scores", [&h] { return Mat(h.scores); }});
    parts.push_back({"attention", [&h] { return Mat(h.attention); }});
  }
  if (o.streams)
    parts.push_back({"output", [&l, &h, hi] {
                       const Eigen::Index dh = h.q.cols();
                       return Mat(l.concat.middleCols(hi * dh, dh));
                     }});
  return parts;
}

std::vector<TracePart> crossLayerParts(const CrossLayerTrace& c, const TraceJsonOptions& o) {
  if (!o.streams) return {};
  return {{"attention_out", [&c] { return c.attentionOut; }},
          {"concat", [&c] { return c.concat; }},
          {"residual_out", [&c] { return c.residualOut; }}};
}

nlohmann::json encDecSmallFields(const EncDecTrace& t, const nlohmann::json& config, const nlohmann::json& extra) {
  nlohmann::json small = extra.is_object() ? extra : nlohmann::json::object();
  small["schema"] = kTraceSchema;
  small["config"] = config;
  small["source_tokens"] = t.encoder.tokens;
  small["source_ids"] = t.encoder.tokenIds;
  small["tokens"] = t.decoder.tokens;
  small["token_ids"] = t.decoder.tokenIds;
  return small;
}

void writeEncDecTraceJson(JsonStreamWriter& out, const EncDecTrace& t, const nlohmann::json& config,
                          const TraceJsonOptions& options, const nlohmann::json& extra) {
  const nlohmann::json small = encDecSmallFields(t, config, extra);
  std::vector<Entry> entries;
  for (const auto& item : small.items()) {
    const std::string key = item.key();
    entries.push_back({key, [&out, &small, key] { out.value(small.at(key)); }});
  }
  if (options.streams) {
    entries.push_back({"embeddings", [&] { out.matrix(t.decoder.embeddings); }});
    entries.push_back({"source_embeddings", [&] { out.matrix(t.encoder.embeddings); }});
  }
  entries.push_back({"encoder_layers", [&] { writeLayers(out, t.encoder, nullptr, options); }});
  entries.push_back({"layers", [&] { writeLayers(out, t.decoder, &t.cross, options); }});
  writeObject(out, std::move(entries));
  out.finish();
}

}  // namespace attnlab
