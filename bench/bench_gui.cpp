// GUI-side speed (offscreen): what an edit costs from new parameters to repainted views, measured on
// the same code path the window runs (LiveController::compute on the worker, then the visible views).
// Targets: edit-to-repaint of all visible views ≤ 16 ms (default model, 6–16 tokens); heatmap redraw
// at 256 tokens ≤ 16 ms; head view (all 12 heads of a layer) at 512 tokens: new result, repaint and
// hover each ≤ 16 ms ("without lag").
#include <QApplication>
#include <string>

#include "bench/bench_util.h"
#include "core/run/model_factory.h"
#include "ui/shell/main_window.h"
#include "ui/views/attention/head_view.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/attention/model_grid_view.h"

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

  // Head view: 512 tokens, 12 heads of one layer, in a 1200 × 900 view (scrolling canvas).
  Params big;
  big.sentence = sentenceOf(512, 0);
  big.model.dModel = 96;
  big.model.heads = 12;
  big.model.layers = 1;
  const ResultPtr r512 = LiveController::compute(big, makeModel(big), {});
  HeadView headView;
  headView.resize(1200, 900);
  headView.show();
  QApplication::processEvents();
  const double newResult = bench::medianMs([&] {
    headView.showResult(r512);
    headView.canvas()->repaint();
  });
  bench::report("head view: new result + paint, 512 tokens x 12 heads", newResult, 16.0);
  const double paint = bench::medianMs([&] { headView.canvas()->repaint(); });
  bench::report("head view: repaint (scroll), 512 tokens x 12 heads", paint, 16.0);
  std::printf("  (%d lines above the threshold 0.02 drawn)\n", headView.canvas()->linesDrawn());
  int token = 0;
  const double hover = bench::medianMs([&] {
    headView.canvas()->setFocusToken(0, token++ % 40, false);
    headView.canvas()->repaint();
  });
  bench::report("head view: hover a token + repaint, 512 tokens", hover, 16.0);
  headView.canvas()->setFocusToken(-1, -1, false);
  {
    Params small = big;
    small.sentence = sentenceOf(64, 0);
    HeadView v64;
    v64.resize(1200, 900);
    v64.show();
    v64.showResult(LiveController::compute(small, makeModel(small), {}));
    QApplication::processEvents();
    const double ms = bench::medianMs([&] { v64.canvas()->repaint(); });
    bench::report("head view: repaint, 64 tokens x 12 heads ", ms, 16.0);
  }
  headView.setThreshold(0.0);  // every line: the worst case the threshold avoids
  const double all = bench::medianMs([&] { headView.canvas()->repaint(); }, 0.2, 3);
  std::printf("  (head view with threshold 0: %d lines above it, the strongest %d drawn: %.1f ms)\n",
              headView.canvas()->linesAboveThreshold(), headView.canvas()->linesDrawn(), all);
  return 0;
}
