#include "ui/views/training/training_worker.h"

#include <chrono>

#include "core/base/errors.h"

namespace attnlab::ui {

namespace {
using Clock = std::chrono::steady_clock;
}

TrainingWorker::TrainingWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<TrainingUpdatePtr>();
  thread_ = std::thread([this] { loop(); });
}

TrainingWorker::~TrainingWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void TrainingWorker::reset(const TrainSettings& s) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++commandGeneration_;
    resetTo_ = s;
    running_ = false;
    pendingSteps_ = 0;
  }
  wake_.notify_all();
}

void TrainingWorker::train(int maxSteps) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++commandGeneration_;
    maxSteps_ = maxSteps;
    running_ = true;
  }
  wake_.notify_all();
}

void TrainingWorker::pause() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++commandGeneration_;
    running_ = false;
    publishNow_ = true;
  }
  wake_.notify_all();
}

void TrainingWorker::stepOnce() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++pendingSteps_;
  }
  wake_.notify_all();
}

void TrainingWorker::setLearningRate(double lr) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lr_ = lr;
    publishNow_ = true;  // the view shows the new rate in effect
  }
  wake_.notify_all();
}

void TrainingWorker::publish(Trainer& t, TrainingUpdate& pending, bool running, bool reset, int generation) {
  auto u = std::make_shared<TrainingUpdate>(std::move(pending));
  pending = TrainingUpdate{};
  u->settings = t.settings();
  u->snapshot = t.snapshot();
  u->params = std::make_shared<const TinyParams<float>>(t.params());
  u->running = running;
  u->reset = reset;
  u->commandGeneration = generation;
  emit updated(u);  // queued to the window's thread
}

void TrainingWorker::loop() {
  std::unique_ptr<Trainer> trainer;
  TrainingUpdate pending;
  Clock::time_point lastPublish = Clock::now();
  int stepsSincePublish = 0;
  double msSincePublish = 0;
  for (;;) {
    std::optional<TrainSettings> resetTo;
    std::optional<double> lr;
    bool doStep = false, publishNow = false;
    int maxSteps = 0;
    int generation = 0;  // of the commands taken in this round
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock,
                 [&] { return quit_ || resetTo_ || lr_ || publishNow_ || pendingSteps_ > 0 || (running_ && trainer); });
      if (quit_) return;
      generation = commandGeneration_;
      resetTo.swap(resetTo_);
      lr.swap(lr_);
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
        auto fresh = std::make_unique<Trainer>(*resetTo);
        trainer = std::move(fresh);
        pending = TrainingUpdate{};
        stepsSincePublish = 0, msSincePublish = 0;
        publish(*trainer, pending, false, true, generation);
      } catch (const std::exception& e) {
        auto u = std::make_shared<TrainingUpdate>();
        u->settings = *resetTo;
        u->error = e.what();
        u->commandGeneration = generation;
        emit updated(u);
      }
      lastPublish = Clock::now();
      continue;
    }
    if (lr && trainer) {
      try {
        trainer->setLearningRate(*lr);
      } catch (const std::exception& e) {
        pending.error = e.what();
      }
    }
    if (!doStep) {
      if ((publishNow || !pending.error.empty()) && trainer) publish(*trainer, pending, running_, false, generation);
      continue;
    }
    const Clock::time_point t0 = Clock::now();
    try {
      const double loss = trainer->step();
      pending.losses.emplace_back(trainer->stepCount(), loss);
    } catch (const std::exception& e) {  // divergence: stop, keep the weights of the last good step
      {
        std::lock_guard<std::mutex> lock(mutex_);
        running_ = false;
      }
      pending.error = e.what();
      publish(*trainer, pending, false, false, generation);
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
      publish(*trainer, pending, stillRunning, false, generation);
      lastPublish = Clock::now();
    }
  }
}

}  // namespace attnlab::ui
