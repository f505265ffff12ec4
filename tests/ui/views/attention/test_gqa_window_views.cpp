// Issue 31 on a tiny Mistral checkpoint (tests/reference/decoders/mistral-window: 4 heads reading 2 kv heads, a
// sliding window of 4 keys): every view that names a head says which kv head it reads ("head 3 (kv 1)"), a model
// without GQA says nothing of it; cells outside the window are shaded "not visible" (not the colour of a weight of
// 0) in the heatmap, the zoomable heatmap and the model grid, and the heatmap's title names the window.
#include <QPushButton>
#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/colormaps.h"
#include "ui/plots/window_shade.h"
#include "ui/shell/live_controller.h"
#include "ui/views/attention/head_view.h"
#include "ui/views/attention/head_view_canvas.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/attention/model_grid_view.h"
#include "ui/views/common/head_names.h"
#include "ui/views/inside_head/matrix_grid_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const std::string kModel = std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/mistral-window";

ResultPtr result(const std::string& sentence, int layer, int head) {
  auto r = std::make_shared<ComputeResult>();
  r->params.sentence = sentence;
  r->params.modelDir = kModel;
  r->params.selection.layer = layer;
  r->params.selection.head = head;
  auto run = std::make_shared<PipelineResult>();
  run->model = loadCheckpoint(kModel);
  run->info = run->model->info();
  run->text = run->model->tokenize(sentence);
  run->trace = run->model->forward(run->text, {}, {});
  r->run = run;
  return r;
}

/// `top` (alpha a/255) painted over `under`, per channel.
QRgb over(QColor top, QRgb under) {
  const double a = top.alphaF();
  const auto mix = [&](int t, int u) { return static_cast<int>(std::lround(t * a + u * (1 - a))); };
  return qRgb(mix(top.red(), qRed(under)), mix(top.green(), qGreen(under)), mix(top.blue(), qBlue(under)));
}

int distance(QRgb a, QRgb b) {
  return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b));
}

}  // namespace

class TestGqaWindowViews : public QObject {
  Q_OBJECT
 private slots:
  void theWindowsStaircase() {
    // n = 5, window 2: rows 2, 3, 4 hide columns [0, 1), [0, 2), [0, 3).
    const QPolygonF p = outsideWindow(5, 2, 0, 5);
    const QPolygonF expected({{0, 2}, {1, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 4}, {3, 5}, {0, 5}});
    QCOMPARE(p, expected);
    QVERIFY(outsideWindow(5, 0, 0, 5).isEmpty());  // no window
    QVERIFY(outsideWindow(5, 8, 0, 5).isEmpty());  // the window is longer than the text
    QVERIFY(hiddenByWindow(4, 9, 0));
    QVERIFY(hiddenByWindow(4, 9, 5));
    QVERIFY(!hiddenByWindow(4, 9, 6));
    QVERIFY(!hiddenByWindow(0, 9, 0));
    QCOMPARE(windowTitleNote(4096), QString(" · window 4,096"));
    QCOMPARE(windowTitleNote(0), QString());
  }

  void heatmapNamesTheKvHeadAndTheWindow() {
    const ResultPtr r = result("the cat sat on the mat and the dog ran off", 1, 3);
    QVERIFY(r->ok());
    const Trace& t = r->trace();
    QCOMPARE(t.kvHeadCount(), 2);
    QCOMPARE(t.layers[1].heads[3].options.window, 4);
    HeatmapView v;
    v.resize(700, 600);
    v.show();
    v.showResult(r);
    QVERIFY2(v.plot()->title().startsWith("Attention · layer 1 · head 3 (kv 1)"), qPrintable(v.plot()->title()));
    QVERIFY2(v.plot()->title().contains(" · window 4"), qPrintable(v.plot()->title()));
    QCOMPARE(v.plot()->window(), 4);
    // Query 8 cannot see key 2 (8 − 4 ≥ 2): shaded; key 5 it sees: the colour of its weight.
    const int n = t.tokenCount();
    QVERIFY(n >= 9);
    v.plot()->replot();
    const QImage img = v.plot()->toPixmap(v.plot()->width(), v.plot()->height()).toImage();
    const auto at = [&](int row, int col) {
      return img.pixel(static_cast<int>(v.plot()->xAxis->coordToPixel(col)),
                       static_cast<int>(v.plot()->yAxis->coordToPixel(row)));
    };
    const QRgb hidden = at(8, 2), seen = at(8, 5);
    QCOMPARE(t.layers[1].heads[3].attention(8, 2), 0.0f);
    QVERIFY2(distance(hidden, over(windowShadeColour(), v.plot()->cellColor(8, 2).rgb())) <= 6,
             qPrintable(QColor(hidden).name()));
    QVERIFY2(distance(seen, v.plot()->cellColor(8, 5).rgb()) <= 6, qPrintable(QColor(seen).name()));
    // Head 1 reads kv head 0.
    v.showResult(result("the cat sat on the mat", 0, 1));
    QVERIFY2(v.plot()->title().startsWith("Attention · layer 0 · head 1 (kv 0)"), qPrintable(v.plot()->title()));
  }

  void zoomableHeatmapShadesOutsideTheWindow() {
    Mat m = Mat::Zero(6, 6);
    for (int i = 0; i < 6; ++i)
      for (int j = std::max(0, i - 1); j <= i; ++j) m(i, j) = j == i ? 0.75f : 0.25f;  // window 2
    auto pyramid = std::make_shared<MapPyramid>();
    pyramid->build(m);
    ZoomableHeatmap w;
    w.resize(500, 400);
    w.setPyramid(pyramid, {}, {});
    w.setWindow(2);
    const QImage img = w.grab().toImage();
    const QRect plot = w.plotRect();
    const auto centre = [&](int row, int col) {
      return QPoint(plot.left() + static_cast<int>(w.scale() * (col + 0.5)),
                    plot.top() + static_cast<int>(w.scale() * (row + 0.5)));
    };
    QCOMPARE(img.pixel(centre(5, 0)), over(windowShadeColour(), w.colorOf(0)));  // outside: shaded
    QCOMPARE(img.pixel(centre(0, 5)), w.colorOf(0));                             // causal zero: not shaded
    QCOMPARE(img.pixel(centre(5, 4)), w.colorOf(0.25));
  }

  void headViewAndModelGridNameKvHeads() {
    const ResultPtr r = result("the cat sat on the mat", 0, 2);
    HeadView hv;
    hv.resize(900, 600);
    hv.show();
    hv.showResult(r);
    QStringList buttons;
    for (QPushButton* b : hv.findChildren<QPushButton*>())
      if (b->text().startsWith('H')) buttons << b->text();
    QVERIFY2(buttons.contains("H3 (kv 1)") && buttons.contains("H0 (kv 0)"), qPrintable(buttons.join(", ")));
    QCOMPARE(kvSuffix(r->trace(), 3), QString(" (kv 1)"));
    // The model grid: a row of "kv g" labels above the heads takes room, and the thumbnails are shaded.
    ModelGridView grid;
    grid.resize(800, 600);
    grid.showResult(r);
    QRect thumb;  // thumbnail L0 H0, found through headAt
    for (int y = 0; y < grid.height(); ++y)
      for (int x = 0; x < grid.width(); ++x) {
        int l, h;
        if (grid.headAt(QPoint(x, y), &l, &h) && l == 0 && h == 0) thumb |= QRect(x, y, 1, 1);
      }
    QVERIFY(!thumb.isEmpty());
    const QImage img = grid.grab().toImage();
    // Its bottom-left cell (the last query, the first key: outside the window of 4) is shaded over the colour of 0;
    // its top-right cell (a causal zero) is not.
    QVERIFY2(distance(img.pixel(thumb.left() + 1, thumb.bottom() - 1),
                      over(windowShadeColour(), colorAt(ColorMap::Viridis, 0))) <= 6,
             qPrintable(QColor(img.pixel(thumb.left() + 1, thumb.bottom() - 1)).name()));
    QVERIFY(distance(img.pixel(thumb.right() - 1, thumb.top() + 1), colorAt(ColorMap::Viridis, 0)) <= 6);
    // No GQA: nothing said.
    Params p;
    p.sentence = "the cat sat";
    const ResultPtr builtin = LiveController::compute(p, nullptr, {});
    QCOMPARE(kvSuffix(builtin->trace(), 1), QString());
    HeatmapView v;
    v.showResult(builtin);
    QVERIFY2(!v.plot()->title().contains("kv") && !v.plot()->title().contains("window"), qPrintable(v.plot()->title()));
    QCOMPARE(v.plot()->window(), 0);
  }

  void longTextsSayWhyAPanelIsEmpty() {
    // Past 2,048 tokens the head view draws nothing and the Q/K/V view has no scores panel: both say why.
    std::string s;
    for (int i = 0; i < 700; ++i) s += "the cat sat ";
    const ResultPtr r = result(s, 0, 0);
    QVERIFY(r->ok());
    QVERIFY(r->trace().tokenCount() > QkvView::kMaxScoresTokens);
    QkvView qkv;
    qkv.resize(900, 700);
    qkv.showResult(r);
    QCOMPARE(static_cast<int>(qkv.plots().size()), 3);
    QVERIFY2(qkv.note().contains("up to 2,048 tokens") && qkv.note().contains("heatmap"), qPrintable(qkv.note()));
    qkv.showResult(result("the cat sat", 0, 0));  // short again: four panels, no note
    QCOMPARE(static_cast<int>(qkv.plots().size()), 4);
    QCOMPARE(qkv.note(), QString());
    HeadView hv;
    hv.resize(900, 600);
    hv.showResult(r);
    QVERIFY2(hv.canvas()->tooLongMessage().contains("up to 2048 tokens"), qPrintable(hv.canvas()->tooLongMessage()));
  }
};

ATTNLAB_TEST_MAIN(TestGqaWindowViews)
#include "test_gqa_window_views.moc"
