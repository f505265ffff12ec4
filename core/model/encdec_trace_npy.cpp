// encDecTraceToNpy (declared in encdec_trace_json.h): the two-text dump as .npy files and an index, as
// core/model/trace_npy.cpp does for one text.
#include "core/base/npy.h"
#include "core/model/encdec_trace_json.h"

namespace attnlab {
namespace {

using FileWriter = std::function<void(const std::string&, const std::string&)>;

nlohmann::json addFile(const std::string& name, const Mat& m, const FileWriter& write) {
  write(name, npyBytes(m));
  return {{"npy", name}, {"shape", {m.rows(), m.cols()}}, {"dtype", "float32"}};
}

void addParts(nlohmann::json& object, const std::vector<TracePart>& parts, const std::string& file,
              const std::string& keyPrefix, const FileWriter& write) {
  for (const TracePart& p : parts) {
    const Mat m = p.make();
    if (m.size() > 0) object[keyPrefix + p.key] = addFile(file + keyPrefix + p.key + ".npy", m, write);
  }
}

/// One stack's layers; `cross` (the decoder's) adds each layer's cross heads (files L<l>_X<h>_…) and streams.
nlohmann::json layersOf(const Trace& t, const std::vector<CrossLayerTrace>* cross, const TraceJsonOptions& o,
                        const std::string& letter, const FileWriter& write) {
  nlohmann::json layers = nlohmann::json::array();
  const std::vector<TraceLayerParts> parts = traceLayerParts(t, o);
  for (std::size_t li = 0; li < parts.size(); ++li) {
    const TraceLayerParts& layer = parts[li];
    nlohmann::json lj = nlohmann::json::object();
    if (layer.written) {
      const std::string prefix = letter + std::to_string(li) + "_";
      nlohmann::json heads = nlohmann::json::array();
      for (std::size_t hi = 0; hi < layer.heads.size(); ++hi) {
        nlohmann::json hj = nlohmann::json::object();
        addParts(hj, layer.heads[hi], prefix + "H" + std::to_string(hi) + "_", "", write);
        heads.push_back(std::move(hj));
      }
      lj["heads"] = std::move(heads);
      addParts(lj, layer.beforeHeads, prefix, "", write);
      addParts(lj, layer.afterHeads, prefix, "", write);
      if (cross) {
        const CrossLayerTrace& c = (*cross)[li];
        nlohmann::json ch = nlohmann::json::array();
        for (int hi = 0; hi < static_cast<int>(c.heads.size()); ++hi) {
          nlohmann::json hj = nlohmann::json::object();
          addParts(hj, crossHeadParts(c, o, static_cast<int>(li), hi), prefix + "X" + std::to_string(hi) + "_", "",
                   write);
          ch.push_back(std::move(hj));
        }
        lj["cross_heads"] = std::move(ch);
        addParts(lj, crossLayerParts(c, o), prefix, "cross_", write);
      }
    }
    layers.push_back(std::move(lj));
  }
  return layers;
}

}  // namespace

nlohmann::json encDecTraceToNpy(const EncDecTrace& t, const nlohmann::json& config, const TraceJsonOptions& options,
                                const nlohmann::json& extra, const FileWriter& write) {
  nlohmann::json j = encDecSmallFields(t, config, extra);
  if (options.streams) {
    j["source_embeddings"] = addFile("source_embeddings.npy", t.encoder.embeddings, write);
    j["embeddings"] = addFile("embeddings.npy", t.decoder.embeddings, write);
  }
  j["encoder_layers"] = layersOf(t.encoder, nullptr, options, "E", write);
  j["layers"] = layersOf(t.decoder, &t.cross, options, "L", write);
  return j;
}

}  // namespace attnlab
