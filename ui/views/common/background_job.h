#pragma once
// Runs a view's heavy analysis (spectra, sweeps, timing curves, deep stacks) off the GUI thread with
// the live loop's rules: a new run supersedes the old one (its cancel flag raised, its result
// dropped), results arrive on the GUI thread. Use one BackgroundJob per independent analysis.
// cancel() is final: nothing of a cancelled run (its result, failure or progress) reaches the GUI thread, even a
// run that had already finished and whose result was waiting in the event queue. stopEarly() is for work that
// returns what it has when stopped (a corpus scan): its result is still delivered.
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrent>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "core/base/run_control.h"

namespace attnlab::ui {

class BackgroundJob : public QObject {
  Q_OBJECT
 public:
  explicit BackgroundJob(QObject* parent = nullptr) : QObject(parent) { pool_.setMaxThreadCount(1); }
  ~BackgroundJob() override {
    stopEarly();  // no busyChanged here: the owner may be half destroyed (jobs are often its members)
    ++generation_;
    pool_.waitForDone();
  }

  /// Starts `work` on the worker. `done` runs on the GUI thread with its result, only if no newer run
  /// was started meanwhile; `failed` (optional) gets the message of an exception other than Cancelled.
  template <typename R>
  void run(std::function<R(const RunControl&)> work, std::function<void(const R&)> done,
           std::function<void(const QString&)> failed = {}) {
    stopEarly();  // the generation below supersedes the old run: its result is dropped
    auto flag = std::make_shared<std::atomic<bool>>(false);
    flag_ = flag;
    const quint64 gen = ++generation_;
    busy_ = true;
    emit busyChanged(true);
    QtConcurrent::run(&pool_, [this, flag, work, gen]() -> std::shared_ptr<Outcome<R>> {
      auto out = std::make_shared<Outcome<R>>();
      RunControl control;
      control.cancel = flag.get();
      control.progress = [this, gen](double f) {
        // A superseded run (it may still be inside a LAPACK call) must not move the newer run's bar.
        QMetaObject::invokeMethod(
            this,
            [this, gen, f] {
              if (gen == generation_) emit progress(f);
            },
            Qt::QueuedConnection);
      };
      try {
        out->value = work(control);
        out->ok = true;
      } catch (const Cancelled&) {
        out->cancelled = true;
      } catch (const std::exception& e) {
        out->error = QString::fromUtf8(e.what());
      }
      return out;
    }).then(this, [this, gen, done, failed](const std::shared_ptr<Outcome<R>>& out) {
      // Always through the event loop: when the work finishes before then() is attached, Qt runs this
      // continuation at once inside run(), and a caller would get its result before run() returned.
      QMetaObject::invokeMethod(
          this,
          [this, gen, done, failed, out] {
            if (gen != generation_) return;  // superseded by a newer run
            busy_ = false;
            emit busyChanged(false);
            if (out->ok)
              done(out->value);
            else if (!out->cancelled && failed)
              failed(out->error);
          },
          Qt::QueuedConnection);
    });
  }

  /// True from run() until the newest run's result (or failure) has been delivered on the GUI thread.
  bool busy() const { return busy_; }

  /// Stops the run for good: its flag is raised and nothing of it is delivered (a finished run's queued result
  /// included); busy() turns false at once, with busyChanged(false).
  void cancel() {
    stopEarly();
    ++generation_;  // what the cancelled run posts carries the old generation: dropped on arrival
    if (busy_) {
      busy_ = false;
      emit busyChanged(false);
    }
  }
  /// Raises the run's cancel flag only: the work stops at its next check and what it returns is delivered as usual
  /// (busy() until then). For work that catches Cancelled and returns its partial result.
  void stopEarly() {
    if (flag_) flag_->store(true);
  }
  /// Blocks until the worker is idle (tests, export from the command line).
  void waitForIdle() { pool_.waitForDone(); }

 signals:
  void busyChanged(bool busy);
  void progress(double fraction);

 private:
  template <typename R>
  struct Outcome {
    R value{};
    bool ok = false, cancelled = false;
    QString error;
  };
  QThreadPool pool_;
  std::shared_ptr<std::atomic<bool>> flag_;
  bool busy_ = false;
  quint64 generation_ = 0;
};

}  // namespace attnlab::ui
