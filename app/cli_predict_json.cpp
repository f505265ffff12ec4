#include "app/cli_predict_json.h"

#include <cmath>
#include <sstream>

#include "core/base/errors.h"

namespace attnlab::cli {

Params paramsWithoutPosition(const Args& args) {
  Args rest = args;
  rest.values.erase("position");
  return oneTextParamsFromArgs(rest);
}

int positionArg(const Args& args, const Model& model, const Trace& trace) {
  if (!args.has("position")) return defaultPosition(model, trace);
  return resolvePosition(args.intValue("position", -1, -1, 1 << 30), trace.tokenCount());
}

nlohmann::json tokenJson(const Model& model, int id) { return {{"id", id}, {"token", model.vocabularyPiece(id)}}; }

nlohmann::json scoresJson(const std::vector<TokenScore>& scores, bool withLogit) {
  nlohmann::json out = nlohmann::json::array();
  for (const TokenScore& s : scores) {
    nlohmann::json j = {{"id", s.id}, {"token", s.token}};
    if (withLogit) j["logit"] = s.logit;
    j["prob"] = s.prob;
    out.push_back(j);
  }
  return out;
}

nlohmann::json matrixJson(const MatD& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      row.push_back(std::isfinite(m(i, j)) ? nlohmann::json(m(i, j)) : nullptr);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace attnlab::cli
