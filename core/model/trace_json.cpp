#include "core/model/trace_json.h"

#include <algorithm>
#include <cmath>

#include "core/model/head_maps.h"
#include "core/model/layer_outputs.h"

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

}  // namespace

nlohmann::json matrixToJson(const Mat& m) { return rowsOf(m); }
nlohmann::json matrixToJson(const MatD& m) { return rowsOf(m); }

nlohmann::json traceToJson(const Trace& t, const nlohmann::json& config, const TraceJsonOptions& options) {
  nlohmann::json j;
  j["schema"] = kTraceSchema;
  j["tokens"] = t.tokens;
  if (!t.tokenIds.empty()) j["token_ids"] = t.tokenIds;
  j["config"] = config;
  j["causal"] = t.causal;
  j["embeddings"] = matrixToJson(t.embeddings);
  nlohmann::json layers = nlohmann::json::array();
  for (int li = 0; li < t.layerCount(); ++li) {
    const LayerTrace& l = t.layers[static_cast<size_t>(li)];
    nlohmann::json heads = nlohmann::json::array();
    for (int hi = 0; hi < static_cast<int>(l.heads.size()); ++hi) {
      const HeadTrace& h = l.heads[static_cast<size_t>(hi)];
      nlohmann::json hj = nlohmann::json::object();
      if (options.qkv) hj.update({{"q", rowsOf(h.q)}, {"k", rowsOf(h.k())}, {"v", rowsOf(h.v())}});
      const auto& only = options.mapsOf;
      if (options.allMaps || std::find(only.begin(), only.end(), std::make_pair(li, hi)) != only.end())
        hj.update(
            {{"scores", rowsOf(headScores(h))}, {"attention", rowsOf(headAttention(h))}});  // long inputs: recomputed
      hj["output"] = rowsOf(l.headOutput(hi));
      heads.push_back(std::move(hj));
    }
    const Mat mlpOut = mlpOutOf(t, li);  // a long input's are recomputed (layer_outputs.h)
    nlohmann::json lj{{"heads", std::move(heads)},
                      {"residual_in", rowsOf(t.layerInput(li))},
                      {"concat", rowsOf(l.concat)},
                      {"attention_out", rowsOf(attentionOutOf(t, li))},
                      {"residual_out", rowsOf(l.residualOut)}};
    if (mlpOut.size() > 0) lj["mlp_out"] = rowsOf(mlpOut);
    layers.push_back(std::move(lj));
  }
  j["layers"] = std::move(layers);
  return j;
}

}  // namespace attnlab
