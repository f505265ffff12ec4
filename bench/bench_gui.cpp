// GUI-side speed (offscreen): what an edit costs from new parameters to repainted views, measured on
// the same code path the window runs (LiveController::compute on the worker, then the visible views).
// Targets: edit-to-repaint of all visible views ≤ 16 ms (default model, 6–16 tokens); heatmap redraw
// at 256 tokens ≤ 16 ms.
#include <QApplication>
#include <string>

#include "bench/bench_util.h"
#include "core/model_factory.h"
#include "ui/heatmap_view.h"
#include "ui/main_window.h"
#include "ui/model_grid_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

std::string sentenceOf(int n, int variant) {
  static const char* words[] = {"the", "cat", "walks", "on", "street", "mary", "gave", "roses", "to", "susan"};
  std::string s;
  for (int i = 0; i < n; ++i) s += std::string(i ? " " : "") + words[(i + variant) % 10];
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  MainWindow w(false);
  w.resize(1600, 1000);
  w.show();
  QApplication::processEvents();
  auto* heatmap = static_cast<HeatmapView*>(w.view("heatmap"));
  auto* grid = static_cast<ModelGridView*>(w.view("model"));

  for (int n : {6, 16, 64, 256}) {
    Params p;
    const auto model = makeModel(p);
    int variant = 0;
    const double ms = bench::medianMs([&] {
      p.sentence = sentenceOf(n, ++variant);  // a different sentence each time, as when typing
      const ResultPtr r = LiveController::compute(p, model, {});
      heatmap->showResult(r);
      grid->showResult(r);
      QApplication::processEvents();  // the plots' queued replots
      w.repaint();                    // and the window's paint, synchronously
    });
    const std::string what = "edit-to-repaint, heatmap + model views, " + std::to_string(n) + " tokens";
    bench::report(what.c_str(), ms, 16.0);
  }

  Params p;
  p.sentence = sentenceOf(256, 0);
  const ResultPtr r = LiveController::compute(p, makeModel(p), {});
  heatmap->showResult(r);
  QApplication::processEvents();
  const Mat a = r->trace().layers[0].heads[0].attention;
  const QStringList labels = r->tokenLabels();
  const double redraw = bench::medianMs([&] {
    heatmap->plot()->setMatrix(a, labels, labels);
    heatmap->plot()->replot(QCustomPlot::rpImmediateRefresh);
    heatmap->repaint();
  });
  bench::report("heatmap redraw, 256 tokens", redraw, 16.0);
  return 0;
}
