// The Training tab while it trains (offscreen): does the window keep its frame rate? A 60 Hz timer runs
// on the GUI thread for a few seconds of training and records how late each tick fires; the time the
// view spends drawing each published snapshot (loss curve, L × H heatmaps, scores table) is measured
// around its handler. Target ("full frame rate"): ≥ 59 ticks a second and no dropped frame (no tick
// more than one frame late).
#include <QApplication>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "ui/views/training/training_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  TrainingView view;
  view.resize(1400, 860);
  view.show();
  // Draw time of each update: measured around the view's own slot (connected after it, so this
  // handler runs right after the view has drawn; the timer starts when the update is delivered).
  std::vector<double> drawMs;
  QElapsedTimer drawClock;
  QObject::connect(
      view.worker(), &TrainingWorker::updated, &view, [&](const TrainingUpdatePtr&) { drawClock.start(); },
      Qt::QueuedConnection);
  QObject::connect(view.worker(), &TrainingWorker::updated, &view, [&](const TrainingUpdatePtr&) {
    view.repaint();  // offscreen: force the paint now so its cost is counted
    if (drawClock.isValid()) drawMs.push_back(drawClock.nsecsElapsed() / 1e6);
  });
  QApplication::processEvents();

  std::vector<double> gaps;
  QElapsedTimer frameClock;
  QTimer frames;
  frames.setTimerType(Qt::PreciseTimer);
  frames.setInterval(16);
  QObject::connect(&frames, &QTimer::timeout, [&] {
    if (frameClock.isValid()) gaps.push_back(frameClock.nsecsElapsed() / 1e6);
    frameClock.start();
  });
  const int steps = 1500;
  view.stepsBox()->setValue(steps);
  frames.start();
  QElapsedTimer wall;
  wall.start();
  view.trainButton()->click();
  while (!(view.lastUpdate() && view.lastUpdate()->snapshot.step >= steps) && wall.elapsed() < 120000)
    QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
  const double seconds = wall.elapsed() / 1000.0;
  frames.stop();
  std::printf("Training tab, default induction model, %d steps on %d training thread(s)\n", steps,
              view.settings().threads);
  std::printf("  wall time %.2f s  = %.2f ms/step with the window drawing\n", seconds, 1000.0 * seconds / steps);
  std::printf("  snapshots drawn %zu; draw time per snapshot median %.2f ms, p95 %.2f ms\n", drawMs.size(),
              percentile(drawMs, 0.5), percentile(drawMs, 0.95));
  // A frame is dropped when a tick comes more than one frame late (gap > 2 × 16.7 ms).
  const long dropped = std::count_if(gaps.begin(), gaps.end(), [](double g) { return g > 33.3; });
  const double rate = static_cast<double>(gaps.size()) / seconds;
  std::printf(
      "  60 Hz timer: %.1f ticks/s (ideal 62.5), gaps median %.2f ms, p95 %.2f ms, max %.2f ms, "
      "dropped frames %ld   %s\n",
      rate, percentile(gaps, 0.5), percentile(gaps, 0.95), percentile(gaps, 1.0), dropped,
      dropped == 0 && rate >= 59.0 ? "ok" : "MISSED");
  return 0;
}
