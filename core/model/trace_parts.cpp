#include "core/model/trace_parts.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/model/head_maps.h"
#include "core/model/layer_outputs.h"

namespace attnlab {
namespace {

bool byKey(const TracePart& a, const TracePart& b) { return a.key < b.key; }

bool mapsWritten(const TraceJsonOptions& o, int layer, int head) {
  const auto& only = o.mapsOf;
  return o.allMaps || std::find(only.begin(), only.end(), std::make_pair(layer, head)) != only.end();
}

std::vector<TracePart> headParts(const Trace& t, const TraceJsonOptions& o, int li, int hi) {
  const LayerTrace& l = t.layers[static_cast<size_t>(li)];
  const HeadTrace& h = l.heads[static_cast<size_t>(hi)];
  std::vector<TracePart> parts;
  if (o.qkv) {
    parts.push_back({"q", [&h] { return Mat(h.q); }});
    parts.push_back({"k", [&h] { return Mat(h.k()); }});
    parts.push_back({"v", [&h] { return Mat(h.v()); }});
  }
  if (mapsWritten(o, li, hi)) {  // long inputs: recomputed from Q and K (head_maps.h)
    parts.push_back({"scores", [&h] { return headScores(h); }});
    parts.push_back({"attention", [&h] { return headAttention(h); }});
  }
  if (o.streams) parts.push_back({"output", [&l, hi] { return Mat(l.headOutput(hi)); }});
  std::sort(parts.begin(), parts.end(), byKey);
  return parts;
}

}  // namespace

std::vector<TraceLayerParts> traceLayerParts(const Trace& t, const TraceJsonOptions& o) {
  std::vector<TraceLayerParts> out(static_cast<size_t>(t.layerCount()));
  for (int li = 0; li < t.layerCount(); ++li) {
    TraceLayerParts& p = out[static_cast<size_t>(li)];
    p.written = o.layers.empty() || std::find(o.layers.begin(), o.layers.end(), li) != o.layers.end();
    if (!p.written) continue;
    const LayerTrace& l = t.layers[static_cast<size_t>(li)];
    for (int hi = 0; hi < static_cast<int>(l.heads.size()); ++hi) p.heads.push_back(headParts(t, o, li, hi));
    if (!o.streams) continue;
    // A long input's attention and MLP outputs are recomputed (layer_outputs.h); the input is the previous output.
    p.beforeHeads = {{"attention_out", [&t, li] { return attentionOutOf(t, li); }},
                     {"concat", [&l] { return l.concat; }}};
    p.afterHeads = {{"mlp_out", [&t, li] { return mlpOutOf(t, li); }},
                    {"residual_in", [&t, li] { return t.layerInput(li); }},
                    {"residual_out", [&l] { return l.residualOut; }}};
  }
  return out;
}

nlohmann::json traceSmallFields(const Trace& t, const nlohmann::json& config, const nlohmann::json& extra) {
  nlohmann::json j = extra.is_object() ? extra : nlohmann::json::object();
  j["schema"] = kTraceSchema;
  j["tokens"] = t.tokens;
  if (!t.tokenIds.empty()) j["token_ids"] = t.tokenIds;
  j["config"] = config;
  j["causal"] = t.causal;
  return j;
}

std::vector<std::string> traceTopKeys(const nlohmann::json& small, const TraceJsonOptions& o) {
  std::vector<std::string> keys;
  for (const auto& item : small.items()) keys.push_back(item.key());
  if (o.streams) keys.emplace_back("embeddings");
  keys.emplace_back("layers");
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace attnlab
