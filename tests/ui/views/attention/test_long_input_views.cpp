// The views on a trace that keeps no maps (issue 18): the model view's thumbnails come from the pass's pooled
// summaries, the head view, the heatmap's numbers and the Q/K/V view read maps recomputed on demand and show the same
// numbers as a trace that kept its maps, and beyond the head view's limit the views say so instead of drawing (or
// allocating) every head's 3,000² map. A grouped-query Qwen2 fixture stands in for a long-context model.
#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "core/model/head_maps.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/views/attention/head_view.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/attention/model_grid_view.h"
#include "ui/views/inside_head/matrix_grid_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const std::string kModel = std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/qwen2-bias";  // GQA, 32,768 positions

std::string words(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += (i % 3 == 0 ? "the cat " : i % 3 == 1 ? "sat on " : "a mat ");
  return s;
}

/// The sentence run with the maps kept or not, as the GUI's worker would hand it to the views.
ResultPtr result(const std::string& sentence, MapKeeping maps, int layer = 1, int head = 2) {
  auto r = std::make_shared<ComputeResult>();
  r->params.sentence = sentence;
  r->params.modelDir = kModel;
  r->params.selection.layer = layer;
  r->params.selection.head = head;
  auto run = std::make_shared<PipelineResult>();
  run->model = loadCheckpoint(kModel);
  run->info = run->model->info();
  run->text = run->model->tokenize(sentence);
  Intervention iv;
  iv.maps = maps;
  run->trace = run->model->forward(run->text, {}, iv);
  r->run = run;
  return r;
}

const LabelledMatrix* find(const ViewNumbers& n, const std::string& name) {
  for (const LabelledMatrix& m : n.matrices)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace

class TestLongInputViews : public QObject {
  Q_OBJECT
 private slots:
  void viewsReadRecomputedMaps() {
    const ResultPtr kept = result(words(60), MapKeeping::Always);
    const ResultPtr tiled = result(words(60), MapKeeping::Never);
    QVERIFY(!tiled->trace().layers[1].heads[2].keepsMaps());
    HeatmapView heatmap;
    const ViewNumbers a = heatmap.numbers(*kept), b = heatmap.numbers(*tiled);
    // Layer 1 reads layer 0's output, which the tiled pass rounds differently (≤ 1e-6).
    ATTNLAB_COMPARE_MATRICES(find(b, "attention_L1_H2")->values, find(a, "attention_L1_H2")->values, 1e-5);

    HeadView headView;
    headView.resize(800, 600);
    headView.show();
    QVERIFY(QTest::qWaitForWindowExposed(&headView));
    headView.showResult(kept);
    QApplication::processEvents();
    headView.canvas()->repaint();
    const int keptLines = headView.canvas()->linesDrawn();
    headView.showResult(tiled);
    QApplication::processEvents();
    headView.canvas()->repaint();
    QVERIFY(keptLines > 0);
    QCOMPARE(headView.canvas()->linesDrawn(), keptLines);

    QkvView qkv;
    qkv.showResult(tiled);
    QCOMPARE(qkv.plots().size(), std::size_t(4));
    ATTNLAB_COMPARE_MATRICES(qkv.plots()[3]->matrix(), kept->trace().layers[1].heads[2].scores, 1e-4);
  }

  void modelViewDrawsPooledThumbnails() {
    const ResultPtr tiled = result(words(60), MapKeeping::Never);
    ModelGridView grid;
    grid.resize(600, 400);
    grid.showResult(tiled);
    const QImage img = grid.grab().toImage();
    int coloured = 0;
    for (int y = 0; y < img.height(); y += 2)
      for (int x = 0; x < img.width(); x += 2) coloured += QColor(img.pixel(x, y)).saturation() > 60;
    QVERIFY2(coloured > 500, qPrintable(QString::number(coloured)));
  }

  void beyondTheLimitsTheViewsSaySo() {
    // ~2,800 words: the pipeline itself tiles (Auto), nothing keeps a map.
    Params p;
    p.sentence = words(1400);
    p.modelDir = kModel;
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    const int n = r->trace().tokenCount();
    QVERIFY(n > HeadViewCanvas::kMaxTokens);
    QVERIFY(!r->trace().layers[0].heads[0].keepsMaps());
    HeadView headView;
    headView.showResult(r);
    QVERIFY(headView.canvas()->tooLongMessage().contains(QString::number(n)));
    HeatmapView heatmap;
    const ViewNumbers numbers = heatmap.numbers(*r);
    const LabelledMatrix* pooled = find(numbers, "attention_pooled_max_L0_H0");
    QVERIFY(pooled);
    // Cells of 64 tokens a side (the smallest power of two that makes at most 64 of them); the last one holds the rest.
    QVERIFY(n > 2048 && n <= 4096);
    QCOMPARE(pooled->values.rows(), Eigen::Index((n + 63) / 64));
    QCOMPARE(pooled->rowLabels.front(), std::string("0-63"));
    QCOMPARE(pooled->rowLabels.back(), std::to_string((n - 1) / 64 * 64) + "-" + std::to_string(n - 1));
    ModelGridView grid;
    QCOMPARE(grid.numbers(*r).matrices.size(), std::size_t(2 * r->trace().layerCount() * r->trace().headCount()));
    QkvView qkv;
    qkv.showResult(r);
    QCOMPARE(qkv.plots().size(), std::size_t(3));  // no n × n scores panel
  }
};

ATTNLAB_TEST_MAIN(TestLongInputViews)
#include "test_long_input_views.moc"
