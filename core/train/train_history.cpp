#include "core/train/train_history.h"

#include <algorithm>
#include <cmath>

#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/train/train_json.h"

namespace attnlab {
namespace {

[[noreturn]] void bad(const std::string& file, const std::string& what) { throw InputError(file + ": " + what); }

/// A finite number at `j`, else a message naming `field`.
double number(const nlohmann::json& j, const std::string& file, const std::string& field) {
  if (!j.is_number() || !std::isfinite(j.get<double>())) bad(file, field + " is not a finite number");
  return j.get<double>();
}

/// [layer][head] {name: score} from snapshotToJson's "scores".
std::vector<std::vector<std::map<std::string, double>>> scoresFrom(const nlohmann::json& j, const std::string& file) {
  if (!j.is_array()) bad(file, "\"final.scores\" is not a list of layers");
  std::vector<std::vector<std::map<std::string, double>>> out;
  for (const auto& layer : j) {
    if (!layer.is_array()) bad(file, "a layer of \"final.scores\" is not a list of heads");
    auto& heads = out.emplace_back();
    for (const auto& head : layer) {
      if (!head.is_object()) bad(file, "a head of \"final.scores\" is not an object of scores");
      auto& scores = heads.emplace_back();
      for (const auto& [name, value] : head.items()) scores[name] = number(value, file, "score \"" + name + "\"");
    }
  }
  return out;
}

/// [layer][head] square maps from "attention"; every map T × T with the probe's T.
std::vector<std::vector<Eigen::MatrixXf>> attentionFrom(const nlohmann::json& j, const std::string& file) {
  if (!j.is_array()) bad(file, "\"final.attention\" is not a list of layers");
  std::vector<std::vector<Eigen::MatrixXf>> out;
  for (const auto& layer : j) {
    if (!layer.is_array()) bad(file, "a layer of \"final.attention\" is not a list of heads");
    auto& heads = out.emplace_back();
    for (const auto& rows : layer) {
      if (!rows.is_array()) bad(file, "an attention map is not a list of rows");
      const auto n = static_cast<Eigen::Index>(rows.size());
      Eigen::MatrixXf a(n, n);
      for (Eigen::Index r = 0; r < n; ++r) {
        const auto& row = rows[static_cast<std::size_t>(r)];
        if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != n)
          bad(file, "an attention map is not square (" + std::to_string(n) + " rows)");
        for (Eigen::Index c = 0; c < n; ++c)
          a(r, c) = static_cast<float>(number(row[static_cast<std::size_t>(c)], file, "an attention weight"));
      }
      heads.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace

std::string trainHistoryPath(const std::string& dir) { return dir + "/history.json"; }

void saveTrainHistory(const std::string& dir, const TrainHistory& h) {
  nlohmann::json losses = nlohmann::json::array();
  for (const auto& [step, loss] : h.losses) losses.push_back({step, loss});
  const nlohmann::json j{{"schema", kTrainHistorySchema},
                         {"task", toString(h.task)},
                         {"losses", losses},
                         {"final", snapshotToJson(h.final, h.task, /*withAttention=*/true)}};
  writeFileAtomically(trainHistoryPath(dir), j.dump() + "\n");
}

std::optional<TrainHistory> loadTrainHistory(const std::string& dir) {
  const std::string file = trainHistoryPath(dir);
  if (!fileExists(file)) return std::nullopt;
  const nlohmann::json j = readJsonFile(file);
  if (!j.is_object() || j.value("schema", std::string()) != kTrainHistorySchema)
    bad(file, std::string("not a training history (schema ") + kTrainHistorySchema + ")");
  TrainHistory h;
  if (!j.contains("task") || !j["task"].is_string()) bad(file, "\"task\" is missing");
  h.task = parseTrainTask(j["task"].get<std::string>());
  if (!j.contains("losses") || !j["losses"].is_array()) bad(file, "\"losses\" is not a list of [step, loss]");
  for (const auto& p : j["losses"]) {
    if (!p.is_array() || p.size() != 2) bad(file, "an entry of \"losses\" is not [step, loss]");
    h.losses.emplace_back(static_cast<int>(number(p[0], file, "a step")), number(p[1], file, "a loss"));
  }
  if (!j.contains("final") || !j["final"].is_object()) bad(file, "\"final\" is missing");
  const nlohmann::json& f = j["final"];
  TrainSnapshot& s = h.final;
  s.step = static_cast<int>(number(f.value("step", nlohmann::json()), file, "\"final.step\""));
  s.loss = number(f.value("loss", nlohmann::json()), file, "\"final.loss\"");
  s.accuracy = number(f.value("accuracy", nlohmann::json()), file, "\"final.accuracy\"");
  s.gradNorm = f.contains("grad_norm") ? number(f["grad_norm"], file, "\"final.grad_norm\"") : 0.0;
  s.scores = scoresFrom(f.value("scores", nlohmann::json()), file);
  if (f.contains("attention")) s.attention = attentionFrom(f["attention"], file);
  if (f.contains("probe_ids") && f["probe_ids"].is_array())
    for (const auto& id : f["probe_ids"]) s.probeIds.push_back(static_cast<int>(number(id, file, "a probe id")));
  return h;
}

TrainHistory runTraining(const TrainSettings& settings, int steps) {
  Trainer trainer(settings);  // validates: InputError names the field
  TrainHistory h;
  h.task = settings.task;
  h.losses.reserve(static_cast<std::size_t>(std::max(steps, 0)));
  for (int k = 1; k <= steps; ++k) h.losses.emplace_back(k, trainer.step());
  h.final = trainer.snapshot();
  return h;
}

}  // namespace attnlab
