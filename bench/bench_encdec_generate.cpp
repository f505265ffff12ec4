// Generate N in the window with an encoder–decoder (issue 33): the target bar's Generate on a random checkpoint of
// opus-mt-en-de's shape (bench/marian_checkpoint.h, the tiny Marian SentencePiece files beside it), a 30-token source,
// 30 greedy tokens, from the click until the last token's run has been drawn; per generated token. Baselines in the
// same run: translateGreedy's per-step time (the core's cached greedy loop, no views) and generateTarget alone (the
// worker's part of the window path). The window's extra per token is one run of the pipeline with every map (the
// views follow each token) and the repaint.
#include <QApplication>
#include <QElapsedTimer>
#include <QToolButton>
#include <cstdio>
#include <string>

#include "bench/bench_util.h"
#include "bench/marian_window_folder.h"
#include "core/run/encdec_generate.h"
#include "core/run/model_factory.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/target_bar.h"
#include "ui/views/common/encdec_result.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const char* kWords[] = {"the", "attention", "head", "looks", "back", "at", "earlier", "tokens"};

/// A source of exactly `n` tokens (eos included).
std::string sourceOf(const EncDecFolderModel& model, int n) {
  std::string s;
  for (int i = 0; static_cast<int>(model.tokenizeSource(s).ids.size()) < n; ++i)
    s += std::string(s.empty() ? "" : " ") + kWords[i % 8];
  while (static_cast<int>(model.tokenizeSource(s).ids.size()) > n) s.pop_back();
  return s;
}

/// Processes events until `done` (or 120 s).
template <typename F>
void waitFor(F done) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < 120000) QApplication::processEvents(QEventLoop::AllEvents, 5);
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const std::string dir = bench::marianWindowFolder();

  Params p;
  p.modelDir = dir;
  const auto model = std::dynamic_pointer_cast<const EncDecFolderModel>(makeModel(p));
  if (!model) return std::fprintf(stderr, "not an encoder-decoder: %s\n", dir.c_str()), 1;
  const int n = 30, steps = 30;
  p.sentence = sourceOf(*model, n);
  p.target.clear();
  p.prediction.generateSteps = steps;
  std::printf(
      "opus-mt-en-de shape (d 512, 6+6 layers, 8 heads, FFN 2048, vocab 8,000), %zu source tokens, %d greedy "
      "tokens\n",
      model->tokenizeSource(p.sentence).ids.size(), steps);

  // Baselines: the core's greedy loop (stops at eos: its own count) and generateTarget's (the worker's part).
  std::size_t greedyTokens = 0;
  const double greedyMs =
      bench::medianOfRuns(5, [&] { greedyTokens = translateGreedy(*model, p.sentence, steps).ids.size(); });
  const double greedyPerStep = greedyMs / static_cast<double>(greedyTokens);
  std::printf("  translateGreedy (baseline)            %3zu tokens %9.2f ms  %7.2f ms/token\n", greedyTokens, greedyMs,
              greedyPerStep);
  std::size_t workerTokens = 0;
  const double workerMs =
      bench::medianOfRuns(5, [&] { workerTokens = generateTarget(*model, p.sentence, "", steps, {}).tokens.size(); });
  std::printf("  generateTarget (the worker alone)     %3zu tokens %9.2f ms  %7.2f ms/token  %5.2f x baseline\n",
              workerTokens, workerMs, workerMs / static_cast<double>(workerTokens),
              workerMs / static_cast<double>(workerTokens) / greedyPerStep);

  MainWindow w(false);
  w.resize(1280, 720);
  w.show();
  TargetBar* bar = w.targetBar();
  for (const char* view : {"heatmap", "cross"}) {
    p.selection.view = view;
    p.selection.stack = "decoder";
    std::vector<double> total, first;
    int made = 0;
    for (int rep = 0; rep < 3; ++rep) {
      p.target.clear();
      w.applyParams(p);
      waitFor([&] {
        const ResultPtr r = w.controller()->lastResult();
        return !w.controller()->busy() && r && encDecRunOf(*r) && r->params.target.empty() &&
               r->params.selection.view == p.selection.view;
      });
      int produced = 0;
      const QMetaObject::Connection counting =
          QObject::connect(bar, &TargetBar::targetProduced, [&produced] { ++produced; });
      QElapsedTimer t;
      t.start();
      bar->generateButton()->click();
      waitFor([&] { return produced > 0; });
      first.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
      waitFor([&] {
        const ResultPtr r = w.controller()->lastResult();
        return !bar->generating() && !w.controller()->busy() && r->params.target == bar->editor()->text().toStdString();
      });
      w.repaint();
      total.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
      made = produced;
      QObject::disconnect(counting);
    }
    const double ms = bench::median(total);
    std::printf(
        "  window, %-7s view, decoder:          %3d tokens %9.2f ms  %7.2f ms/token  %5.2f x baseline  (first "
        "token on screen after %.1f ms)\n",
        view, made, ms, ms / made, ms / made / greedyPerStep, bench::median(first));
  }
  return 0;
}
