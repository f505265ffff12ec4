#pragma once
// The thread both Training workers run a trainer on (the one-text Trainer, core/train/trainer.h, and the
// EncDecTrainer, core/train/tiny_encdec_trainer.h): the window sends commands (reset, train to a step, pause, one
// step, learning rate), the thread takes them between steps — a step is a few milliseconds, so every command answers
// at once — and hands the window, at most every `publishInterval`, the losses since the previous update, a snapshot
// and a copy of the weights. The trainer lives only on that thread.
//
// `Traits` names the trainer and says what a snapshot is:
//   using Trainer, Settings, Snapshot, Params;       // Trainer(Settings), step() -> loss, stepCount(), settings(),
//                                                    // params() -> const Params&
//   static Snapshot snapshot(const Trainer&, double lastLoss);
//   static constexpr bool kKeepTrainerWhenRefused;   // refused settings keep the old trainer (else: none is left)
// A trainer with setLearningRate(double) takes a new rate live; one without answers setLearningRate with an error.
// The worker (a QObject: Qt's moc takes no templates) derives from QObject and this, implements deliver() as a
// queued signal, calls startThread() in its constructor and stopThread() in its destructor.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace attnlab::ui {

/// What the thread publishes: the state after the latest step, and the losses since the previous update.
template <class Settings, class Snapshot, class Params>
struct TrainerUpdate {
  Settings settings;
  Snapshot snapshot;
  std::vector<std::pair<int, double>> losses;  ///< (step, loss) since the previous update
  std::shared_ptr<const Params> params;        ///< null when the settings were refused
  double msPerStep = 0;                        ///< mean over the steps since the previous update
  bool running = false;                        ///< false once paused, stopped at the step limit, or failed
  std::string error;   ///< a message (bad settings, divergence); the weights are those of the last good step
  bool reset = false;  ///< first update of a new trainer: the window clears its curves
  /// The last train/pause/reset command the worker had taken when it published: an update older than the window's
  /// latest command says nothing about whether training runs now (Train pressed just after Pause must not be shown
  /// as paused by the pause's own snapshot arriving late).
  int commandGeneration = 0;
};

namespace detail {
template <class T, class = void>
struct HasLiveLearningRate : std::false_type {};
template <class T>
struct HasLiveLearningRate<T, std::void_t<decltype(std::declval<T&>().setLearningRate(1.0))>> : std::true_type {};
}  // namespace detail

template <class Traits>
class TrainerThread {
 public:
  using Trainer = typename Traits::Trainer;
  using Settings = typename Traits::Settings;
  using Update = TrainerUpdate<Settings, typename Traits::Snapshot, typename Traits::Params>;
  using UpdatePtr = std::shared_ptr<const Update>;

  virtual ~TrainerThread() = default;  // the worker has called stopThread()
  TrainerThread(const TrainerThread&) = delete;
  TrainerThread& operator=(const TrainerThread&) = delete;

  /// A new trainer from these settings (step 0), published at once; refused settings publish an error. Stops
  /// training.
  void reset(const Settings& s) {
    command([&] {
      resetTo_ = s;
      running_ = false;
      pendingSteps_ = 0;
    });
  }
  /// Trains until step `maxSteps` (counted from step 0) or pause(); maxSteps < 1 publishes an error.
  void train(int maxSteps) {
    command([&] {
      if (maxSteps < 1) {
        refusal_ = "the step to stop at must be at least 1 (got " + std::to_string(maxSteps) + ")";
        running_ = false;
        publishNow_ = true;
      } else {
        maxSteps_ = maxSteps;
        running_ = true;
      }
    });
  }
  /// Stops training and publishes the weights of the last step at once.
  void pause() {
    command([&] {
      running_ = false;
      publishNow_ = true;
    });
  }
  /// One step (while paused).
  void stepOnce() {
    command([&] { ++pendingSteps_; }, false);
  }
  /// A new learning rate for the running trainer (no reset); published at once, so the view shows it in effect.
  void setLearningRate(double lr) {
    command(
        [&] {
          lr_ = lr;
          publishNow_ = true;
        },
        false);
  }
  bool running() const { return running_; }
  /// Counts train, pause and reset commands (see TrainerUpdate::commandGeneration).
  int commandGeneration() const { return commandGeneration_; }
  /// Seconds between snapshots while training (default 0.1: ten pictures a second).
  void setPublishInterval(double seconds) { publishInterval_ = seconds; }

 protected:
  TrainerThread() = default;
  /// Hands an update to the window; called on the training thread.
  virtual void deliver(UpdatePtr update) = 0;
  void startThread() {
    thread_ = std::thread([this] { loop(); });
  }
  /// Ends the thread (after the step it is in); the worker's destructor calls it before deliver() goes away.
  void stopThread() {
    command([&] { quit_ = true; }, false);
    if (thread_.joinable()) thread_.join();
  }

 private:
  using Clock = std::chrono::steady_clock;

  /// Runs `change` under the lock (counting it as a train/pause/reset command when `counted`) and wakes the thread.
  template <class Change>
  void command(Change change, bool counted = true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (counted) ++commandGeneration_;
      change();
    }
    wake_.notify_all();
  }

  void publish(Trainer& t, Update& pending, double lastLoss, bool running, bool reset, int generation) {
    auto u = std::make_shared<Update>(std::move(pending));
    pending = Update{};
    u->settings = t.settings();
    u->snapshot = Traits::snapshot(t, lastLoss);
    u->params = std::make_shared<const typename Traits::Params>(t.params());
    u->running = running;
    u->reset = reset;
    u->commandGeneration = generation;
    deliver(std::move(u));
  }

  void setRate(Trainer& t, double lr, Update& pending) {
    if constexpr (detail::HasLiveLearningRate<Trainer>::value) {
      try {
        t.setLearningRate(lr);
      } catch (const std::exception& e) {
        pending.error = e.what();
      }
    } else {
      pending.error = "this trainer takes a new learning rate only with a reset";
    }
  }

  void loop() {
    std::unique_ptr<Trainer> trainer;
    Update pending;
    Clock::time_point lastPublish = Clock::now();
    int stepsSincePublish = 0;
    double msSincePublish = 0, lastLoss = 0;
    for (;;) {
      std::optional<Settings> resetTo;
      std::optional<double> lr;
      bool doStep = false, publishNow = false;
      int maxSteps = 0;
      int generation = 0;  // of the commands taken in this round
      std::string refusal;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] {
          return quit_ || resetTo_ || lr_ || publishNow_ || pendingSteps_ > 0 || (running_ && trainer);
        });
        if (quit_) return;
        generation = commandGeneration_;
        resetTo.swap(resetTo_);
        lr.swap(lr_);
        refusal.swap(refusal_);
        publishNow = publishNow_;
        publishNow_ = false;
        maxSteps = maxSteps_;
        if (!trainer && !resetTo) pendingSteps_ = 0, running_ = false;  // nothing to step (the settings were refused)
        if (!resetTo && trainer) {
          if (running_ && trainer->stepCount() >= maxSteps_) {  // Train pressed at the limit: say it stopped
            running_ = false;
            publishNow = true;
          }
          if (running_) {
            doStep = true;
          } else if (pendingSteps_ > 0) {
            --pendingSteps_;
            doStep = true;
          }
        }
      }
      if (resetTo) {
        try {
          trainer = std::make_unique<Trainer>(*resetTo);
          pending = Update{};
          stepsSincePublish = 0, msSincePublish = 0, lastLoss = 0;
          publish(*trainer, pending, lastLoss, false, true, generation);
        } catch (const std::exception& e) {
          if (!Traits::kKeepTrainerWhenRefused) trainer.reset();
          auto u = std::make_shared<Update>();
          u->settings = *resetTo;
          u->error = e.what();
          u->commandGeneration = generation;
          deliver(std::move(u));
        }
        lastPublish = Clock::now();
        continue;
      }
      if (lr && trainer) setRate(*trainer, *lr, pending);
      if (!refusal.empty()) pending.error = refusal;
      if (!doStep) {
        if ((publishNow || !pending.error.empty()) && trainer)
          publish(*trainer, pending, lastLoss, running_, false, generation);
        continue;
      }
      const Clock::time_point t0 = Clock::now();
      try {
        lastLoss = trainer->step();
        pending.losses.emplace_back(trainer->stepCount(), lastLoss);
      } catch (const std::exception& e) {  // divergence: stop, keep the weights of the last good step
        {
          std::lock_guard<std::mutex> lock(mutex_);
          running_ = false;
        }
        pending.error = e.what();
        publish(*trainer, pending, lastLoss, false, false, generation);
        continue;
      }
      ++stepsSincePublish;
      msSincePublish += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      const bool stillRunning = running_ && trainer->stepCount() < maxSteps;
      const double since = std::chrono::duration<double>(Clock::now() - lastPublish).count();
      if (!stillRunning || since >= publishInterval_) {
        pending.msPerStep = msSincePublish / std::max(1, stepsSincePublish);
        stepsSincePublish = 0, msSincePublish = 0;
        if (!stillRunning) {
          std::lock_guard<std::mutex> lock(mutex_);
          if (trainer->stepCount() >= maxSteps_) running_ = false;  // a Train pressed meanwhile raised the limit
        }
        publish(*trainer, pending, lastLoss, stillRunning, false, generation);
        lastPublish = Clock::now();
      }
    }
  }

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  // Commands, under mutex_:
  std::optional<Settings> resetTo_;
  std::optional<double> lr_;
  int pendingSteps_ = 0;
  int maxSteps_ = 0;
  std::string refusal_;      ///< train()'s message for a bad step limit
  bool publishNow_ = false;  ///< pause(), a new rate or a refusal: publish without a step
  bool quit_ = false;
  std::atomic<int> commandGeneration_{0};
  std::atomic<bool> running_{false};
  std::atomic<double> publishInterval_{0.1};
};

}  // namespace attnlab::ui
