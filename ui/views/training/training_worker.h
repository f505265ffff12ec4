#pragma once
// Runs a Trainer (core/train/trainer.h) on a thread of its own so the window keeps its frame rate, and hands
// the window what it draws: the loss of every step and, at most every `publishInterval`, a snapshot
// (scores and attention of every head on the probe) with a copy of the weights. The thread and its commands
// (train, pause, one step, reset, learning rate) are TrainerThread's (trainer_thread.h), shared with the
// encoder–decoder's worker.
#include <QObject>

#include "core/train/trainer.h"
#include "ui/views/training/trainer_thread.h"

namespace attnlab::ui {

/// The one-text trainer for TrainerThread: its own snapshot (scores and attention of every head on the probe).
struct OneTextTraining {
  using Trainer = attnlab::Trainer;
  using Settings = TrainSettings;
  using Snapshot = TrainSnapshot;
  using Params = TinyParams<float>;
  static Snapshot snapshot(const Trainer& t, double /*lastLoss: the snapshot holds it*/) { return t.snapshot(); }
  /// Refused settings leave the previous model drawn (Train and Step stay disabled until the settings change).
  static constexpr bool kKeepTrainerWhenRefused = true;
};

using TrainingUpdate = TrainerUpdate<TrainSettings, TrainSnapshot, TinyParams<float>>;
using TrainingUpdatePtr = std::shared_ptr<const TrainingUpdate>;

class TrainingWorker : public QObject, public TrainerThread<OneTextTraining> {
  Q_OBJECT
 public:
  explicit TrainingWorker(QObject* parent = nullptr);
  ~TrainingWorker() override;

 signals:
  void updated(attnlab::ui::TrainingUpdatePtr update);

 private:
  void deliver(TrainingUpdatePtr update) override { emit updated(std::move(update)); }  // queued to the window
};

}  // namespace attnlab::ui

Q_DECLARE_METATYPE(attnlab::ui::TrainingUpdatePtr)
