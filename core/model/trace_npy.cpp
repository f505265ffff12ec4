#include "core/model/trace_npy.h"

#include "core/base/npy.h"
#include "core/model/trace_parts.h"

namespace attnlab {
namespace {

using FileWriter = std::function<void(const std::string&, const std::string&)>;

nlohmann::json reference(const std::string& name, const Mat& m) {
  return {{"npy", name}, {"shape", {m.rows(), m.cols()}}, {"dtype", "float32"}};
}

void addParts(nlohmann::json& object, const std::vector<TracePart>& parts, const std::string& prefix,
              const FileWriter& write) {
  for (const TracePart& p : parts) {
    const Mat m = p.make();
    if (m.size() == 0) continue;
    const std::string name = prefix + p.key + ".npy";
    write(name, npyBytes(m));
    object[p.key] = reference(name, m);
  }
}

}  // namespace

nlohmann::json traceToNpy(const Trace& t, const nlohmann::json& config, const TraceJsonOptions& options,
                          const nlohmann::json& extra, const FileWriter& write) {
  nlohmann::json j = traceSmallFields(t, config, extra);
  if (options.streams) {
    write("embeddings.npy", npyBytes(t.embeddings));
    j["embeddings"] = reference("embeddings.npy", t.embeddings);
  }
  nlohmann::json layers = nlohmann::json::array();
  const std::vector<TraceLayerParts> parts = traceLayerParts(t, options);
  for (std::size_t li = 0; li < parts.size(); ++li) {
    const TraceLayerParts& layer = parts[li];
    nlohmann::json lj = nlohmann::json::object();
    if (layer.written) {
      const std::string prefix = "L" + std::to_string(li) + "_";
      nlohmann::json heads = nlohmann::json::array();
      for (std::size_t hi = 0; hi < layer.heads.size(); ++hi) {
        nlohmann::json hj = nlohmann::json::object();
        addParts(hj, layer.heads[hi], prefix + "H" + std::to_string(hi) + "_", write);
        heads.push_back(std::move(hj));
      }
      lj["heads"] = std::move(heads);
      addParts(lj, layer.beforeHeads, prefix, write);
      addParts(lj, layer.afterHeads, prefix, write);
    }
    layers.push_back(std::move(lj));
  }
  j["layers"] = std::move(layers);
  return j;
}

}  // namespace attnlab
