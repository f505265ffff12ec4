// The heatmap view's two faces: up to HeatmapView::kLongInput tokens the MatrixPlot of the map; longer
// inputs the zoomable heatmap, whose pyramid is the trace's map (every level's max equals the map's),
// whose hover names the tokens and the exact weight in the read-out strip, and whose numbers stay the
// whole map.
#include <QLabel>
#include <QMouseEvent>
#include <QtTest>

#include <cmath>

#include "tests/harness/test_registry.h"
#include "ui/plots/view_style.h"
#include "ui/shell/live_controller.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/common/token_selection.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

ResultPtr run(int tokens) {
  Params p;
  std::string s;
  for (int i = 0; i < tokens; ++i) s += std::string(i ? " " : "") + (i % 3 ? "cat" : "the");
  p.sentence = s;
  return LiveController::compute(p, nullptr, {});
}

}  // namespace

class TestHeatmapView : public QObject {
  Q_OBJECT
 private slots:
  void shortInputsKeepTheMatrixPlot() {
    HeatmapView v;
    v.resize(700, 600);
    v.show();
    const ResultPtr r = run(12);
    QVERIFY(r->ok());
    v.showResult(r);
    QVERIFY(!v.showsLong());
    QVERIFY(v.plot()->isVisible());
    QVERIFY(!v.longPlot()->isVisible());
    QCOMPARE(v.plot()->rows(), 12);
  }

  void longInputsAreZoomableWithExactHover() {
    HeatmapView v;
    TokenSelection selection;
    v.setTokenSelection(&selection);
    v.resize(900, 800);
    v.show();
    const int n = HeatmapView::kLongInput + 44;
    const ResultPtr r = run(n);
    QVERIFY(r->ok());
    QCOMPARE(static_cast<int>(r->tokenLabels().size()), n);
    v.showResult(r);
    QVERIFY(v.showsLong());
    QVERIFY(v.longPlot()->isVisible());
    QVERIFY(!v.plot()->isVisible());
    const MapPyramid* p = v.longPlot()->pyramid();
    const Mat& a = r->trace().layers[0].heads[0].attention;
    QCOMPARE(p->rows(), n);
    QCOMPARE(p->level(p->levelCount() - 1, Pooling::Max).maxCoeff(), a.maxCoeff());
    // Hover at 5 pixels a cell: the strip names the query, the key and the weight of that cell.
    ZoomableHeatmap* w = v.longPlot();
    w->zoomBy(5 / w->scale(), w->plotRect().center());
    const QPointF pos = w->plotRect().center() + QPointF(3, 2);
    int row, col;
    QVERIFY(w->cellAt(pos, &row, &col));
    QMouseEvent move(QEvent::MouseMove, pos, w->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &move);
    const QString text = v.hoverStrip()->text();
    QVERIFY2(text.contains(QString("[%1]").arg(row)) && text.contains(QString("[%1]").arg(col)), qPrintable(text));
    QVERIFY2(text.contains(QString::number(a(row, col), 'f', 4)), qPrintable(text));
    // The hovered cell's query is the hovered token, marked on the map like the pins of the result.
    QCOMPARE(w->markedHover(), row);
    // The numbers are the whole map, not a pooled level.
    const ViewNumbers numbers = v.numbers(*r);
    QCOMPARE(numbers.matrices.at(0).values.rows(), Eigen::Index{n});
    QCOMPARE(numbers.matrices.at(0).values(row, col), static_cast<double>(a(row, col)));
    // Back to a short sentence: the MatrixPlot again.
    v.showResult(run(8));
    QVERIFY(!v.showsLong());
    QVERIFY(v.plot()->isVisible());
  }

  void longMapsUnderTheRowAndLogScales() {
    // Issue 31: a long causal map is blank on 0–1. Row: every row's peak is the top colour, the read-out is the
    // weight itself; log: colours from logFloor(n). The title names the scale in force.
    HeatmapView v;
    v.resize(900, 800);
    v.show();
    const int n = HeatmapView::kLongInput + 44;
    const ResultPtr r = run(n);
    QVERIFY(r->ok());
    const Mat& a = r->trace().layers[0].heads[0].attention;
    const auto setScale = [](const std::string& name) {
      DisplaySettings d;
      d.attentionScale = name;
      ViewStyle::instance().setDisplay(d);
    };
    setScale("row");
    v.showResult(r);
    ZoomableHeatmap* w = v.longPlot();
    const MapPyramid* p = w->pyramid();
    const auto& table = colorTable(ColorMap::Viridis);
    for (int row : {0, 7, n / 2, n - 1}) {
      const float top = a.row(row).maxCoeff();
      for (int col : {0, row / 2, row}) {
        QCOMPARE(p->value(row, col), a(row, col) / top);
        QCOMPARE(w->cellColor(row, col), lookup(table, a(row, col) / top));
      }
    }
    // Max pooling of the normalised rows: the coarsest level's cells are all 1 on their rows' peaks (the diagonal
    // blocks hold a row's peak for every row in a causal map, at least its own key).
    const MapLevel& coarse = p->level(p->levelCount() - 1, Pooling::Max);
    for (Eigen::Index i = 0; i < coarse.rows(); ++i) QCOMPARE(coarse.row(i).maxCoeff(), 1.0f);
    // Hover reads the weight, not the normalised value.
    w->zoomBy(5 / w->scale(), w->plotRect().center());
    const QPointF pos = w->plotRect().center() + QPointF(3, 2);
    int row, col;
    QVERIFY(w->cellAt(pos, &row, &col));
    QMouseEvent move(QEvent::MouseMove, pos, w->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &move);
    QVERIFY2(v.hoverStrip()->text().contains(QString::number(a(row, col), 'f', 4)), qPrintable(v.hoverStrip()->text()));
    // Log: the pyramid holds the weights again; a cell's colour is its log position from 10^−4 (n = 300).
    setScale("log");
    QCOMPARE(w->pyramid()->value(n - 1, 3), a(n - 1, 3));
    QCOMPARE(w->cellColor(n - 1, 3), lookup(table, (std::log10(double(a(n - 1, 3))) + 4) / 4));
    setScale("unit");
    QCOMPARE(w->cellColor(n - 1, 3), lookup(table, double(a(n - 1, 3))));
  }

  void titlesNameTheScale() {
    HeatmapView v;
    v.resize(700, 600);
    v.show();
    v.showResult(run(12));
    QCOMPARE(v.plot()->title(), QString("Attention · layer 0 · head 0"));
    DisplaySettings d;
    d.attentionScale = "log";
    ViewStyle::instance().setDisplay(d);
    QCOMPARE(v.plot()->title(), QString("Attention · layer 0 · head 0 · log colours"));
    QCOMPARE(v.plot()->colorBarLabel(), QString("weight (log)"));
    d.attentionScale = "row";
    ViewStyle::instance().setDisplay(d);
    QCOMPARE(v.plot()->title(), QString("Attention · layer 0 · head 0 · each row to its max"));
    QCOMPARE(v.plot()->colorBarLabel(), QString("weight ÷ row max"));
    ViewStyle::instance().setDisplay(DisplaySettings{});
    QCOMPARE(v.plot()->title(), QString("Attention · layer 0 · head 0"));
    QCOMPARE(v.plot()->colorBarLabel(), QString("weight"));
  }

  // Issue 31: an edit of the text (the map grows or shrinks) keeps the zoom and the pan the user chose, clamped to the
  // new map; a map shown whole stays whole as it grows.
  void anEditKeepsTheZoomAndPan() {
    HeatmapView v;
    v.resize(900, 800);
    v.show();
    const int n = HeatmapView::kLongInput + 44;
    v.showResult(run(n));
    ZoomableHeatmap* w = v.longPlot();
    QCOMPARE(w->visibleCells(), QRectF(0, 0, n, n));  // fitted at first
    v.showResult(run(n + 1));                         // a word typed at the end: still the whole map
    QCOMPARE(w->visibleCells(), QRectF(0, 0, n + 1, n + 1));
    w->zoomBy(4, w->plotRect().center());
    w->centreOn(QPointF(0.7 * n, 0.8 * n));  // towards the later tokens
    w->panBy(QPointF(3, 0));
    const double scale = w->scale();
    const QRectF before = w->visibleCells();
    QVERIFY(before.width() < n / 3.0 && before.left() > 0 && before.bottom() < n - 15);
    QVERIFY(before.bottom() - 7 > HeatmapView::kLongInput);
    v.showResult(run(n + 5));  // grown: the same cells in view at the same scale
    QCOMPARE(w->scale(), scale);
    QCOMPARE(w->visibleCells(), before);
    QCOMPARE(w->pyramid()->rows(), n + 5);
    // Cut short of the window's cells: the same scale, the view moved back to end at the map's last token.
    const int cut = static_cast<int>(before.bottom()) - 7;
    v.showResult(run(cut));
    QCOMPARE(w->scale(), scale);
    QCOMPARE(w->visibleCells().size(), before.size());
    QCOMPARE(w->visibleCells().bottom(), static_cast<double>(cut));
    QCOMPARE(w->visibleCells().left(), before.left());
  }
};

ATTNLAB_TEST_MAIN(TestHeatmapView)
#include "test_heatmap_view.moc"
