#include "ui/views/training/encdec_training_worker.h"

#include <chrono>

namespace attnlab::ui {

namespace {
using Clock = std::chrono::steady_clock;
}

EncDecTrainingWorker::EncDecTrainingWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<EncDecTrainingUpdatePtr>();
  thread_ = std::thread([this] { loop(); });
}

EncDecTrainingWorker::~EncDecTrainingWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void EncDecTrainingWorker::reset(const EncDecTrainSettings& s) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++commandGeneration_;
    resetTo_ = s;
    running_ = false;
  }
  wake_.notify_all();
}

void EncDecTrainingWorker::train(int maxSteps) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++commandGeneration_;
    if (maxSteps < 1) {
      refusal_ = "the step to stop at must be at least 1 (got " + std::to_string(maxSteps) + ")";
      running_ = false;
      publishNow_ = true;
    } else {
      maxSteps_ = maxSteps;
      running_ = true;
    }
  }
  wake_.notify_all();
}

void EncDecTrainingWorker::pause() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++commandGeneration_;
    running_ = false;
    publishNow_ = true;
  }
  wake_.notify_all();
}

void EncDecTrainingWorker::loop() {
  std::unique_ptr<EncDecTrainer> trainer;
  EncDecTrainingUpdate pending;
  Clock::time_point lastPublish = Clock::now();
  int stepsSincePublish = 0;
  double msSincePublish = 0, lastLoss = 0;
  auto publish = [&](bool running, bool reset, int generation) {
    auto u = std::make_shared<EncDecTrainingUpdate>(std::move(pending));
    pending = EncDecTrainingUpdate{};
    u->settings = trainer->settings();
    u->snapshot = encDecSnapshot(trainer->settings(), trainer->params());
    u->snapshot.step = trainer->stepCount();
    u->snapshot.loss = lastLoss;
    u->params = std::make_shared<const TinyEncDecParams<float>>(trainer->params());
    u->msPerStep = stepsSincePublish > 0 ? msSincePublish / stepsSincePublish : 0.0;
    u->running = running, u->reset = reset, u->commandGeneration = generation;
    stepsSincePublish = 0, msSincePublish = 0;
    lastPublish = Clock::now();
    emit updated(u);  // queued to the window's thread
  };
  for (;;) {
    std::optional<EncDecTrainSettings> resetTo;
    bool doStep = false, publishNow = false;
    int maxSteps = 0, generation = 0;
    std::string refusal;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || resetTo_ || publishNow_ || (running_ && trainer); });
      if (quit_) return;
      generation = commandGeneration_;
      resetTo.swap(resetTo_);
      publishNow = publishNow_;
      publishNow_ = false;
      refusal.swap(refusal_);
      maxSteps = maxSteps_;
      if (!trainer && !resetTo) running_ = false;  // the settings were refused: nothing to train
      if (!resetTo && trainer && running_) {
        if (trainer->stepCount() >= maxSteps) {  // Train pressed at the limit: say it stopped
          running_ = false;
          publishNow = true;
        } else {
          doStep = true;
        }
      }
    }
    if (resetTo) {
      try {
        trainer = std::make_unique<EncDecTrainer>(*resetTo);
        pending = EncDecTrainingUpdate{};
        stepsSincePublish = 0, msSincePublish = 0, lastLoss = 0;
        publish(false, true, generation);
      } catch (const std::exception& e) {
        trainer.reset();
        auto u = std::make_shared<EncDecTrainingUpdate>();
        u->settings = *resetTo;
        u->error = e.what();
        u->commandGeneration = generation;
        emit updated(u);
      }
      continue;
    }
    if (!doStep) {
      if (!refusal.empty()) pending.error = refusal;
      if (publishNow && trainer) publish(running_, false, generation);
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
      publish(false, false, generation);
      continue;
    }
    ++stepsSincePublish;
    msSincePublish += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const bool stillRunning = running_ && trainer->stepCount() < maxSteps;
    if (!stillRunning) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (trainer->stepCount() >= maxSteps_) running_ = false;  // a Train pressed meanwhile raised the limit
    }
    if (!stillRunning || std::chrono::duration<double>(Clock::now() - lastPublish).count() >= publishInterval_) {
      publish(stillRunning, false, generation);
    }
  }
}

}  // namespace attnlab::ui
