#pragma once
// Runs an EncDecTrainer (core/train/tiny_encdec_trainer.h) on a thread of its own, as TrainingWorker runs the
// one-text Trainer: the window sends commands (reset, train to a step, pause), the thread takes them between steps
// (a step is a few milliseconds) and publishes, at most every `publishInterval`, the losses since the previous
// update, a snapshot (cross-attention on the probe, alignment scores, held-out accuracy) and a copy of the weights.
#include <QObject>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/train/encdec_probe.h"

namespace attnlab::ui {

struct EncDecTrainingUpdate {
  EncDecTrainSettings settings;
  EncDecSnapshot snapshot;
  std::vector<std::pair<int, double>> losses;  ///< (step, loss) since the previous update
  std::shared_ptr<const TinyEncDecParams<float>> params;
  double msPerStep = 0;       ///< mean over the steps since the previous update
  bool running = false;       ///< false once paused, stopped at the step limit, or failed
  std::string error;          ///< refused settings (no params) or divergence (the last good weights kept)
  bool reset = false;         ///< first update of a new trainer
  int commandGeneration = 0;  ///< as TrainingUpdate::commandGeneration
};
using EncDecTrainingUpdatePtr = std::shared_ptr<const EncDecTrainingUpdate>;

class EncDecTrainingWorker : public QObject {
  Q_OBJECT
 public:
  explicit EncDecTrainingWorker(QObject* parent = nullptr);
  ~EncDecTrainingWorker() override;
  /// A new trainer (step 0), published at once; refused settings publish an error. Stops training.
  void reset(const EncDecTrainSettings& s);
  /// Trains until step `maxSteps` or pause(); maxSteps < 1 publishes an error.
  void train(int maxSteps);
  void pause();
  bool running() const { return running_; }
  int commandGeneration() const { return commandGeneration_; }
  void setPublishInterval(double seconds) { publishInterval_ = seconds; }

 signals:
  void updated(attnlab::ui::EncDecTrainingUpdatePtr update);

 private:
  void loop();

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  // Commands, under mutex_:
  std::optional<EncDecTrainSettings> resetTo_;
  int maxSteps_ = 0;
  std::string refusal_;  ///< train()'s message for a bad step limit
  bool publishNow_ = false;
  bool quit_ = false;
  std::atomic<int> commandGeneration_{0};
  std::atomic<bool> running_{false};
  std::atomic<double> publishInterval_{0.1};
};

}  // namespace attnlab::ui

Q_DECLARE_METATYPE(attnlab::ui::EncDecTrainingUpdatePtr)
