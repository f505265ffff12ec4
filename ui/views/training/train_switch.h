#pragma once
// The Train/Pause state both Training pages keep for their worker (TrainerThread, trainer_thread.h): whether the
// page believes training runs, and whether the worker refused the controls' settings (then Train would train the
// old model, or none: it stays disabled until the settings change). Pages call reset()/toggle() for their buttons,
// and take() then settle() around drawing each update.
#include <QCoreApplication>
#include <QLabel>
#include <QString>

namespace attnlab::ui {

class TrainSwitch {
 public:
  bool training() const { return training_; }
  bool refused() const { return refused_; }
  /// "Train" or "Pause": what the button does now.
  QString buttonText() const { return tr(training_ ? "Pause" : "Train"); }

  /// A new trainer from `settings` (paused at step 0).
  template <class Worker, class Settings>
  void reset(Worker& worker, const Settings& settings) {
    training_ = false;
    worker.reset(settings);
  }
  /// Train (to `maxSteps`) or Pause.
  template <class Worker>
  void toggle(Worker& worker, int maxSteps) {
    training_ = !training_;
    if (training_)
      worker.train(maxSteps);
    else
      worker.pause();
  }
  /// Shows `u`'s error in `status`. Returns false when the settings were refused (no weights: nothing to draw);
  /// a reset's update clears the refusal.
  template <class Update>
  bool take(const Update& u, QLabel* status) {
    if (!u.error.empty()) {
      status->setText(tr("<b>Stopped:</b> %1").arg(QString::fromStdString(u.error).toHtmlEscaped()));
      if (!u.params) {
        training_ = false;
        refused_ = true;
        return false;
      }
    }
    if (u.reset) refused_ = false;
    return true;
  }
  /// After drawing `u`: training has stopped when it reached the step limit or diverged — unless `u` was published
  /// before the page's latest command (a Train pressed just after Pause).
  template <class Update, class Worker>
  void settle(const Update& u, const Worker& worker) {
    if (!u.running && training_ && !u.reset && u.commandGeneration == worker.commandGeneration()) training_ = false;
  }
  /// " · 1.23 ms/step", or "" before any step was timed.
  static QString msPerStep(double ms) { return ms > 0 ? tr(" · %1 ms/step").arg(ms, 0, 'f', 2) : QString(); }

 private:
  static QString tr(const char* text) { return QCoreApplication::translate("TrainSwitch", text); }

  bool training_ = false;
  bool refused_ = false;
};

}  // namespace attnlab::ui
