#pragma once
// A training run's history beside the model it produced: DIR/history.json, written by the window's
// "Save model…"/"Use in views" and by `attnlab train --save`, read by `attnlab export --view training --model DIR`
// to draw the run again without training it:
//   {"schema": "attnlab.train_history/1", "task": "induction", "losses": [[step, loss], ...],
//    "final": snapshotToJson(..., withAttention = true)}
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/train/trainer.h"

namespace attnlab {

inline constexpr const char* kTrainHistorySchema = "attnlab.train_history/1";

struct TrainHistory {
  TrainTask task = TrainTask::Induction;
  std::vector<std::pair<int, double>> losses;  ///< (step, loss) of every step, ascending
  TrainSnapshot final;                         ///< scores and probe attention after the last step
};

/// The file's path inside a model folder.
std::string trainHistoryPath(const std::string& dir);
/// Writes DIR/history.json (atomically); throws InputError naming the file on failure.
void saveTrainHistory(const std::string& dir, const TrainHistory& h);
/// Reads DIR/history.json: nullopt when the folder has none; InputError naming the file and the field when it is
/// there but malformed (not JSON, another schema, a loss that is not a number, a ragged attention map).
std::optional<TrainHistory> loadTrainHistory(const std::string& dir);

/// A bounded, seeded run: `steps` optimiser steps of `settings` from step 0, every loss kept. Deterministic for the
/// settings (seed and thread count). Throws InputError for bad settings or a diverged run.
TrainHistory runTraining(const TrainSettings& settings, int steps);

}  // namespace attnlab
