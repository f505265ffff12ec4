#pragma once
// Runs an EncDecTrainer (core/train/tiny_encdec_trainer.h) on a thread of its own, as TrainingWorker runs the
// one-text Trainer (the same TrainerThread, trainer_thread.h): the window sends commands (reset, train to a step,
// pause), the thread takes them between steps and publishes, at most every `publishInterval`, the losses since the
// previous update, a snapshot (cross-attention on the probe, alignment scores, held-out accuracy) and a copy of the
// weights. The learning rate changes only with a reset (the trainer has no live rate).
#include <QObject>

#include "core/train/encdec_probe.h"
#include "ui/views/training/trainer_thread.h"

namespace attnlab::ui {

/// The encoder–decoder trainer for TrainerThread: its snapshot is computed from the weights (encdec_probe.h).
struct EncDecTraining {
  using Trainer = EncDecTrainer;
  using Settings = EncDecTrainSettings;
  using Snapshot = EncDecSnapshot;
  using Params = TinyEncDecParams<float>;
  static Snapshot snapshot(const Trainer& t, double lastLoss);
  /// Refused settings leave no model: nothing is drawn or trained until the settings change.
  static constexpr bool kKeepTrainerWhenRefused = false;
};

using EncDecTrainingUpdate = TrainerUpdate<EncDecTrainSettings, EncDecSnapshot, TinyEncDecParams<float>>;
using EncDecTrainingUpdatePtr = std::shared_ptr<const EncDecTrainingUpdate>;

class EncDecTrainingWorker : public QObject, public TrainerThread<EncDecTraining> {
  Q_OBJECT
 public:
  explicit EncDecTrainingWorker(QObject* parent = nullptr);
  ~EncDecTrainingWorker() override;

 signals:
  void updated(attnlab::ui::EncDecTrainingUpdatePtr update);

 private:
  void deliver(EncDecTrainingUpdatePtr update) override { emit updated(std::move(update)); }  // queued to the window
};

}  // namespace attnlab::ui

Q_DECLARE_METATYPE(attnlab::ui::EncDecTrainingUpdatePtr)
