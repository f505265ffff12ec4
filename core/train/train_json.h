#pragma once
// A training snapshot as JSON, the contract of `attnlab train`'s final line:
//   {"step": k, "loss": x, "accuracy": a, "grad_norm": g, "primary_score": "induction",
//    "scores": [[{"induction": a, "previous_token": b, …} per head] per layer],
//    "best_head": {"layer": l, "head": h, "score": s}, "attention": [[T×T per head] per layer] (optional)}
#include <nlohmann/json.hpp>

#include "core/train/trainer.h"

namespace attnlab {

nlohmann::json snapshotToJson(const TrainSnapshot& s, TrainTask task, bool withAttention);

/// The head with the highest score of that name (layer, head, score); {-1, -1, 0} when none has it.
struct BestHead {
  int layer = -1, head = -1;
  double score = 0;
};
BestHead bestHead(const TrainSnapshot& s, const std::string& scoreName);
/// The head with the highest primary score of the task.
BestHead bestHead(const TrainSnapshot& s, TrainTask task);

}  // namespace attnlab
