// The window with an encoder–decoder (issue 33): an edit of the source text until every visible view has redrawn, on
// a random checkpoint of opus-mt-en-de's shape (bench/marian_checkpoint.h) with the tiny Marian SentencePiece files of
// tests/reference/tokenizers/spm/marian beside it (a real tokenizer; the vocabulary size does not change the forward
// pass but the unembedding). Target: ≤ 100 ms for a 30-token source. The baseline in the same run is the core forward
// pass alone (EncDecModel::forward of the same ids), so the ratio is what the window adds to it.
#include <QApplication>
#include <cstdio>
#include <string>

#include "bench/bench_util.h"
#include "bench/marian_window_folder.h"
#include "core/run/encdec_run.h"
#include "core/run/model_factory.h"
#include "ui/shell/main_window.h"
#include "ui/views/common/encdec_result.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const char* kWords[] = {"the", "attention", "head", "looks", "back", "at", "earlier", "tokens"};

/// A source of exactly `n` tokens (eos included) for `model`, its words shifted by `variant` (a new text per edit).
std::string sourceOf(const EncDecFolderModel& model, int n, int variant) {
  std::string s;
  for (int i = 0; static_cast<int>(model.tokenizeSource(s).ids.size()) < n; ++i)
    s += std::string(s.empty() ? "" : " ") + kWords[(i + variant) % 8];
  while (static_cast<int>(model.tokenizeSource(s).ids.size()) > n) s.pop_back();
  return s;
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

  MainWindow w(false);
  w.resize(1280, 720);
  w.show();
  QApplication::processEvents();
  const int n = 30;
  p.target = sourceOf(*model, n - 1, 3);  // a 30-token target too (start token + 29)
  std::printf(
      "opus-mt-en-de shape (d 512, 6+6 layers, 8 heads, FFN 2048, vocab 8,000), %d source tokens, %zu target "
      "tokens\n",
      static_cast<int>(model->tokenizeSource(sourceOf(*model, n, 0)).ids.size()),
      model->tokenizeTarget(p.target).ids.size());

  // Baseline: the forward pass alone.
  const std::vector<int> src = model->tokenizeSource(sourceOf(*model, n, 0)).ids;
  const std::vector<int> tgt = model->tokenizeTarget(p.target).ids;
  const double forwardMs = bench::medianOfRuns(7, [&] { model->model().forward(src, tgt); });
  std::printf("  core forward (baseline)                              %9.2f ms\n", forwardMs);
  // Where the forward's time goes: the encoder alone, and the pass without the logits (n_tgt · d · vocab).
  const double encodeMs = bench::medianOfRuns(7, [&] { model->model().encode(src); });
  const double noLogitsMs = bench::medianOfRuns(7, [&] { model->model().forward(src, tgt, false); });
  std::printf("  core encoder alone                                   %9.2f ms  %5.2f x forward\n", encodeMs,
              encodeMs / forwardMs);
  std::printf("  core forward without logits                          %9.2f ms  %5.2f x forward\n", noLogitsMs,
              noLogitsMs / forwardMs);
  const Mat decoderOut = model->model().forward(src, tgt, false).decoderOut;
  const double logitsMs = bench::medianOfRuns(15, [&] { model->model().logits(decoderOut); });
  std::printf("  core logits alone (%zu rows)                          %9.2f ms  %5.2f x forward\n", tgt.size(),
              logitsMs, logitsMs / forwardMs);

  // The same pass with the last run's encoder and decoder rows (EncDecReuse, as the window's run takes them): the
  // target's last word edited (rows before it reused), and the target edited at its start (the encoder alone reused).
  const std::string targetBase = sourceOf(*model, n - 2, 3);
  const std::vector<int> tgtEnd = model->tokenizeTarget(targetBase + " " + kWords[5]).ids;
  std::vector<int> tgtStart = tgt;
  tgtStart[1] = tgtStart[1] == 5 ? 6 : 5;
  const EncDecTrace earlier = model->model().forward(src, tgt);
  EncDecReuse reuse;
  reuse.encoder = &earlier.encoder;
  reuse.encoderOut = &earlier.encoderOut;
  reuse.cross = &earlier.cross;
  reuse.decoder = &earlier.decoder;
  reuse.decoderOut = &earlier.decoderOut;
  reuse.logits = &earlier.logits;
  std::size_t common = 0;
  while (common + 1 < tgtEnd.size() && common < tgt.size() && tgt[common] == tgtEnd[common]) ++common;
  reuse.decoderRows = static_cast<int>(common);
  const double endMs = bench::medianOfRuns(7, [&] { model->model().forward(src, tgtEnd, reuse); });
  reuse.decoderRows = 0;
  const double startMs = bench::medianOfRuns(7, [&] { model->model().forward(src, tgtStart, reuse); });
  std::printf("  core forward, target's end edited (encoder + %2zu rows reused) %7.2f ms  %5.2f x forward\n", common,
              endMs, endMs / forwardMs);
  std::printf("  core forward, target's start edited (encoder reused)      %9.2f ms  %5.2f x forward\n", startMs,
              startMs / forwardMs);

  if (argc > 1 && std::string(argv[1]) == "--core") return 0;  // the core rows alone
  for (const char* edit : {"source", "target"}) {
    for (const char* stack : {"encoder", "decoder"}) {
      for (const char* view : {"heatmap", "headview", "qkv", "outputs", "cross"}) {
        w.showView(view);
        std::vector<TraceView*> shown = {w.view(view)};
        if (std::string(view) == "heatmap") shown.push_back(w.view("model"));  // one page, side by side
        p.selection.stack = stack;
        p.sentence = sourceOf(*model, n, 0);
        p.target = targetBase + " " + kWords[0];
        ResultPtr last = LiveController::compute(p, model, {});  // the window passes its last run to the next
        int variant = 0;
        double computeMs = 0;
        const double ms = bench::medianOfRuns(7, [&] {
          ++variant;
          if (std::string(edit) == "source")
            p.sentence = sourceOf(*model, n, variant);  // an edit of the source
          else
            p.target = targetBase + " " + kWords[variant % 8];  // the target's last word edited
          const auto t0 = std::chrono::steady_clock::now();
          last = LiveController::compute(p, model, {}, last->run);
          const ResultPtr r = shownStack(last);
          computeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          for (TraceView* v : shown) v->showResult(r);
          QApplication::processEvents();
          w.repaint();
        });
        const std::string what = std::string("edit of the ") + edit + " to repaint, " + view + " view, " + stack;
        std::printf("  %-52s %9.2f ms  %5.2f x forward  (compute %.1f ms)  target 100 ms %s\n", what.c_str(), ms,
                    ms / forwardMs, computeMs, ms <= 100.0 ? "ok" : "MISSED");
      }
    }
  }
  return 0;
}
