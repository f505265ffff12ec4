// A class as the teacher gives it: every lesson, every step, in the real window at a projector's size.
// Measures the time from a step's key press (the PageDown slot, LessonPanel::next) to the drawn view:
// the run on the worker, the view's own analyses (collapse curves, spectra) and the window's repaint.
// With --shots DIR, writes each step as the class sees it (DIR/lessonNN_stepS.png) for the README's
// contact sheet; the window's size against the screen's is printed, since a lesson must never grow the
// window past the screen's edge.
//
//   xvfb-run -a -s "-screen 0 1280x720x24" build/bench/bench_lessons --present --shots /tmp/shots
// Target (issue 30): a step's key press to the drawn view ≤ 300 ms on the built-in models.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QScreen>
#include <QThread>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "ui/shell/lesson_panel.h"
#include "ui/shell/main_window.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// Processes events until the window's controller is idle and the view on show has finished its own
/// analyses, then paints the window synchronously.
void waitUntilDrawn(MainWindow& w) {
  for (;;) {
    QApplication::processEvents(QEventLoop::AllEvents, 5);
    if (!w.controller()->busy()) break;
    QThread::msleep(1);
  }
  QApplication::processEvents();  // the result's delivery to the visible views
  if (TraceView* v = w.currentView()) v->waitForAnalyses();
  QApplication::processEvents();  // the plots' queued replots
  w.repaint();
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  bool present = false;
  QString shots;
  int only = -1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--present")) present = true;
    if (!std::strcmp(argv[i], "--shots") && i + 1 < argc) shots = argv[++i];
    if (!std::strcmp(argv[i], "--lesson") && i + 1 < argc) only = std::atoi(argv[++i]) - 1;
  }
  if (!shots.isEmpty()) QDir().mkpath(shots);
  MainWindow w(false);
  const QRect screen = w.screen()->availableGeometry();
  w.resize(screen.size() * 0.9);
  w.show();
  if (present) w.setPresentation(true);
  waitUntilDrawn(w);
  std::printf("screen %d x %d, presentation %s\n", screen.width(), screen.height(), present ? "on" : "off");

  LessonPanel* lessons = w.lessonPanel();
  std::vector<double> times;
  double worst = 0;
  std::string worstName;
  for (int l = 0; l < lessons->lessonCount(); ++l) {
    if (only >= 0 && l != only) continue;
    for (int s = 0, steps = 1; s < steps; ++s) {
      QElapsedTimer t;
      t.start();
      if (s == 0)
        lessons->selectLesson(l);  // the Lesson menu's entry: shows the lesson's first step
      else
        lessons->next();  // what PageDown does
      waitUntilDrawn(w);
      steps = static_cast<int>(lessons->currentLesson()->steps.size());
      const double ms = double(t.nsecsElapsed()) / 1e6;
      times.push_back(ms);
      const std::string name = "lesson " + std::to_string(l + 1) + " step " + std::to_string(s + 1);
      if (ms > worst) worst = ms, worstName = name;
      const QSize size = w.frameGeometry().size();
      const bool fits = size.width() <= screen.width() && size.height() <= screen.height();
      std::printf("%-22s %8.1f ms   window %d x %d%s\n", name.c_str(), ms, size.width(), size.height(),
                  fits ? "" : "   LARGER THAN THE SCREEN");
      if (!shots.isEmpty())
        w.grab().save(QDir(shots).filePath(QString("lesson%1_step%2.png").arg(l + 1, 2, 10, QChar('0')).arg(s + 1)));
    }
  }
  if (times.empty()) return 1;
  bench::report("lesson step: key press to drawn view (median)", bench::median(times), 300.0);
  std::printf("  (worst: %s, %.1f ms; %zu steps)\n", worstName.c_str(), worst, times.size());
  return 0;
}
