// The heatmap view's two faces: up to HeatmapView::kLongInput tokens the MatrixPlot of the map; longer
// inputs the zoomable heatmap, whose pyramid is the trace's map (every level's max equals the map's),
// whose hover names the tokens and the exact weight in the read-out strip, and whose numbers stay the
// whole map.
#include <QLabel>
#include <QMouseEvent>
#include <QtTest>

#include "tests/harness/test_registry.h"
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
