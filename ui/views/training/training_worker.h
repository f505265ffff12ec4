#pragma once
// Runs a Trainer (core/train/trainer.h) on a thread of its own so the window keeps its frame rate, and hands
// the window what it draws: the loss of every step and, at most every `publishInterval`, a snapshot
// (scores and attention of every head on the probe) with a copy of the weights. The Trainer lives only
// on that thread; the window talks to it through commands (train, pause, one step, reset, learning rate),
// which the thread picks up between steps — a step is a few milliseconds, so every command answers at once.
#include <QObject>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/train/trainer.h"

namespace attnlab::ui {

struct TrainingUpdate {
  TrainSettings settings;
  TrainSnapshot snapshot;
  std::vector<std::pair<int, double>> losses;  ///< (step, loss) since the previous update
  std::shared_ptr<const TinyParams<float>> params;
  double msPerStep = 0;  ///< mean over the steps since the previous update
  bool running = false;  ///< false once paused, stopped at the step limit, or failed
  std::string error;     ///< a message (bad settings, divergence); the trainer is kept as it was
  bool reset = false;    ///< first update of a new trainer: the window clears its curves
  /// The last train/pause/reset command the worker had taken when it published: an update older than
  /// the window's latest command says nothing about whether training runs now (Train pressed just after
  /// Pause must not be shown as paused by the pause's own snapshot arriving late).
  int commandGeneration = 0;
};
using TrainingUpdatePtr = std::shared_ptr<const TrainingUpdate>;

class TrainingWorker : public QObject {
  Q_OBJECT
 public:
  explicit TrainingWorker(QObject* parent = nullptr);
  ~TrainingWorker() override;
  /// A new trainer from these settings (step 0); publishes its first snapshot. Stops training.
  void reset(const TrainSettings& s);
  /// Trains until `maxSteps` (counted from step 0) or pause().
  void train(int maxSteps);
  void pause();
  /// One step (while paused).
  void stepOnce();
  void setLearningRate(double lr);
  bool running() const { return running_; }
  /// Counts train, pause and reset commands (see TrainingUpdate::commandGeneration).
  int commandGeneration() const { return commandGeneration_; }
  /// Seconds between snapshots while training (default 0.1: ten pictures a second).
  void setPublishInterval(double seconds) { publishInterval_ = seconds; }

 signals:
  void updated(attnlab::ui::TrainingUpdatePtr update);

 private:
  void loop();
  void publish(Trainer& t, TrainingUpdate& pending, bool running, bool reset, int generation);

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  // Commands, under mutex_:
  std::optional<TrainSettings> resetTo_;
  std::optional<double> lr_;
  int pendingSteps_ = 0;
  int maxSteps_ = 0;
  bool publishNow_ = false;  ///< pause(): show the weights of the last step at once
  bool quit_ = false;
  std::atomic<int> commandGeneration_{0};
  std::atomic<bool> running_{false};
  std::atomic<double> publishInterval_{0.1};
};

}  // namespace attnlab::ui

Q_DECLARE_METATYPE(attnlab::ui::TrainingUpdatePtr)
