#include "core/train/train_json.h"

namespace attnlab {

BestHead bestHead(const TrainSnapshot& s, TrainTask task) { return bestHead(s, primaryScore(task)); }

BestHead bestHead(const TrainSnapshot& s, const std::string& key) {
  BestHead best;
  for (std::size_t l = 0; l < s.scores.size(); ++l)
    for (std::size_t h = 0; h < s.scores[l].size(); ++h) {
      const auto it = s.scores[l][h].find(key);
      if (it != s.scores[l][h].end() && (best.layer < 0 || it->second > best.score))
        best = {static_cast<int>(l), static_cast<int>(h), it->second};
    }
  return best;
}

nlohmann::json snapshotToJson(const TrainSnapshot& s, TrainTask task, bool withAttention) {
  nlohmann::json j{{"step", s.step}, {"loss", s.loss}, {"accuracy", s.accuracy}, {"grad_norm", s.gradNorm}};
  j["primary_score"] = primaryScore(task);
  nlohmann::json scores = nlohmann::json::array();
  for (const auto& layer : s.scores) {
    nlohmann::json heads = nlohmann::json::array();
    for (const auto& head : layer) heads.push_back(head);  // std::map → object
    scores.push_back(heads);
  }
  j["scores"] = scores;
  const BestHead b = bestHead(s, task);
  j["best_head"] = {{"layer", b.layer}, {"head", b.head}, {"score", b.score}};
  if (withAttention) {
    nlohmann::json att = nlohmann::json::array();
    for (const auto& layer : s.attention) {
      nlohmann::json heads = nlohmann::json::array();
      for (const Eigen::MatrixXf& a : layer) {
        nlohmann::json rows = nlohmann::json::array();
        for (Eigen::Index r = 0; r < a.rows(); ++r) {
          std::vector<float> row(static_cast<std::size_t>(a.cols()));
          for (Eigen::Index c = 0; c < a.cols(); ++c) row[static_cast<std::size_t>(c)] = a(r, c);
          rows.push_back(row);
        }
        heads.push_back(rows);
      }
      att.push_back(heads);
    }
    j["attention"] = att;
    j["probe_ids"] = s.probeIds;
  }
  return j;
}

}  // namespace attnlab
