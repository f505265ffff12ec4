// The zoomable heatmap of long maps (ui/plots/zoomable_heatmap.h): the view starts fitted; zoom keeps the
// cell under the cursor, pan moves by pixels and stops at the edges; the level drawn follows the zoom;
// a max-pooled view keeps a single peak visible when cells are far smaller than a pixel (a mean one
// does not); hover reads the exact full-resolution value even without level 0; a click on the minimap
// centres the viewport there; empty, 1 × 1 and 3 × 5 maps paint their cells in the map's colours.
#include <QtTest>

#include <QMouseEvent>

#include "core/base/rng.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/zoomable_heatmap.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

std::shared_ptr<MapPyramid> pyramidOf(const Mat& m, std::size_t budget = MapPyramid::kDefaultBudgetBytes) {
  auto p = std::make_shared<MapPyramid>();
  MapPyramid::Options o;
  o.level0BudgetBytes = budget;
  auto shared = std::make_shared<const Mat>(m);
  p->build(
      static_cast<int>(m.rows()), static_cast<int>(m.cols()),
      [shared](int first, int n, Mat& block) { block = shared->middleRows(first, n); }, o);
  return p;
}

Mat uniform(int rows, int cols) {
  Rng rng(5);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform());
  return m;
}

/// The widget position of the centre of cell (row, col).
QPointF centreOf(const ZoomableHeatmap& w, int row, int col) {
  const QRectF vis = w.visibleCells();
  const QRectF screen(w.plotRect());
  const double dx = std::max(0.0, (screen.width() / w.scale() - vis.width()) / 2);
  const double dy = std::max(0.0, (screen.height() / w.scale() - vis.height()) / 2);
  return screen.topLeft() + (QPointF(col + 0.5, row + 0.5) - vis.topLeft() + QPointF(dx, dy)) * w.scale();
}

void moveMouse(QWidget& w, const QPointF& pos) {
  QMouseEvent ev(QEvent::MouseMove, pos, w.mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &ev);
}

void click(QWidget& w, const QPointF& pos) {
  QMouseEvent press(QEvent::MouseButtonPress, pos, w.mapToGlobal(pos), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &press);
  QMouseEvent release(QEvent::MouseButtonRelease, pos, w.mapToGlobal(pos), Qt::LeftButton, Qt::NoButton,
                      Qt::NoModifier);
  QApplication::sendEvent(&w, &release);
}

}  // namespace

class TestZoomableHeatmap : public QObject {
  Q_OBJECT
 private slots:
  void smallAndEmptyMapsPaint() {
    ZoomableHeatmap w;
    w.resize(500, 400);
    QVERIFY(!w.grab().isNull());  // no map at all
    w.setPyramid(pyramidOf(Mat(0, 0)), {}, {});
    QVERIFY(!w.grab().isNull());
    QVERIFY(w.minimapRect().isEmpty());
    Mat one(1, 1);
    one << 0.7f;
    w.setPyramid(pyramidOf(one), {"a"}, {"a"});
    QImage img = w.grab().toImage();
    QCOMPARE(img.pixel(centreOf(w, 0, 0).toPoint()), w.colorOf(0.7));
    Mat m(3, 5);
    m << 0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f, 0.05f, 0.15f, 0.25f, 0.35f;
    w.setPyramid(pyramidOf(m), {"x", "y", "z"}, {"a", "b", "c", "d", "e"});
    QCOMPARE(w.scale(), w.fitScale());
    QCOMPARE(w.drawnLevel(), 0);
    img = w.grab().toImage();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 5; ++c) QCOMPARE(img.pixel(centreOf(w, r, c).toPoint()), w.colorOf(m(r, c)));
  }

  void zoomKeepsTheCellUnderTheCursorAndPanStopsAtEdges() {
    ZoomableHeatmap w;
    w.resize(700, 600);
    w.setPyramid(pyramidOf(uniform(1000, 1000)), {}, {});
    const double fit = w.fitScale();
    QVERIFY(fit < 1);
    QCOMPARE(w.visibleCells(), QRectF(0, 0, 1000, 1000));
    const QPointF anchor = w.plotRect().topLeft() + QPointF(w.plotRect().width() * 0.3, w.plotRect().height() * 0.6);
    int r0, c0, r1, c1;
    QVERIFY(w.cellAt(anchor, &r0, &c0));
    w.zoomBy(16, anchor);
    QCOMPARE(w.scale(), 16 * fit);
    QVERIFY(w.cellAt(anchor, &r1, &c1));
    QVERIFY(std::abs(r1 - r0) <= 1 && std::abs(c1 - c0) <= 1);
    const QRectF before = w.visibleCells();
    QCOMPARE(before.width(), w.plotRect().width() / w.scale());
    w.panBy(QPointF(40, -20));  // drag right and up: the view moves left and down the map
    QCOMPARE(w.visibleCells().left(), before.left() - 40 / w.scale());
    QCOMPARE(w.visibleCells().top(), before.top() + 20 / w.scale());
    w.panBy(QPointF(1e6, 1e6));
    QCOMPARE(w.visibleCells().topLeft(), QPointF(0, 0));
    w.zoomBy(1e-3, anchor);  // never smaller than the whole map
    QCOMPARE(w.scale(), fit);
    w.zoomBy(1e6, anchor);
    QCOMPARE(w.scale(), ZoomableHeatmap::kMaxPixelsPerCell);
  }

  void levelFollowsZoomAndMaxKeepsAPeak() {
    ZoomableHeatmap w;
    w.resize(500, 450);
    Mat m = Mat::Zero(4000, 4000);
    m(2001, 1999) = 1;
    const auto pyramid = pyramidOf(m);
    w.setPyramid(pyramid, {}, {});
    // ~ 300 pixels for 4000 cells: 13 cells a pixel, level 3 (8 cells ≤ 1 px, 16 would be > 1 px).
    QCOMPARE(w.drawnLevel(), pyramid->levelFor(w.fitScale()));
    QCOMPARE(w.drawnLevel(), static_cast<int>(std::floor(std::log2(1 / w.fitScale()))));
    QVERIFY(w.drawnLevel() >= 3);
    const auto count = [&](QRgb colour) {
      const QImage img = w.grab().toImage();
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) n += img.pixel(x, y) == colour;
      return n;
    };
    const int peak = count(w.colorOf(1));  // a pixel whose range touches the peak's level cell
    QVERIFY2(peak >= 1 && peak <= 4, qPrintable(QString::number(peak)));
    w.setPooling(Pooling::Mean);
    QCOMPARE(count(w.colorOf(1)), 0);  // averaged away
    w.zoomBy(1 / w.fitScale() * 2, w.plotRect().center());
    QCOMPARE(w.drawnLevel(), 0);
  }

  void aPanDrawsWhatAFullRenderDraws_data() {
    QTest::addColumn<double>("pixelsPerCell");
    QTest::newRow("pooled level") << 0.3;
    QTest::newRow("full resolution through the producer") << 3.0;
  }
  void aPanDrawsWhatAFullRenderDraws() {
    // A drag moves the cached picture and renders only the uncovered strips: the result must be the
    // picture a full render of the new view gives.
    QFETCH(double, pixelsPerCell);
    ZoomableHeatmap w;
    w.resize(600, 500);
    w.setPyramid(pyramidOf(uniform(1500, 1400), 4096), {}, {});
    w.zoomBy(pixelsPerCell / w.scale(), w.plotRect().center());
    const int level = w.drawnLevel();
    w.grab();
    for (const QPointF& step : {QPointF(17, -9), QPointF(-40, 0), QPointF(0, 23)}) w.panBy(step);
    QCOMPARE(w.drawnLevel(), level);
    const QImage scrolled = w.grab().toImage();
    w.setPooling(Pooling::Mean);  // content changes: the next paint renders every pixel
    w.setPooling(Pooling::Max);
    const QImage full = w.grab().toImage();
    const QRect plot = w.plotRect();
    int differ = 0;
    for (int y = plot.top(); y <= plot.bottom(); ++y)
      for (int x = plot.left(); x <= plot.right(); ++x) differ += scrolled.pixel(x, y) != full.pixel(x, y);
    QCOMPARE(differ, 0);
  }

  void hoverReadsTheExactValueWithoutLevelZero() {
    ZoomableHeatmap w;
    w.resize(600, 500);
    w.show();
    const Mat m = uniform(300, 260);
    const auto pyramid = pyramidOf(m, 1024);  // far below the map's 312 kB: no level 0
    QVERIFY(!pyramid->hasLevel(0));
    w.setPyramid(pyramid, {}, {});
    w.zoomBy(6 / w.fitScale(), w.plotRect().center());  // 6 pixels per cell
    QCOMPARE(w.drawnLevel(), 0);
    QVERIFY(!w.grab().isNull());  // full-resolution cells read through the producer
    QSignalSpy hovered(&w, &ZoomableHeatmap::cellHovered);
    int row, col;
    const QPointF pos = w.plotRect().center() + QPointF(13, 7);
    QVERIFY(w.cellAt(pos, &row, &col));
    moveMouse(w, pos);
    QCOMPARE(hovered.size(), 1);
    QCOMPARE(hovered[0][0].toInt(), row);
    QCOMPARE(hovered[0][1].toInt(), col);
    QCOMPARE(hovered[0][2].toDouble(), static_cast<double>(m(row, col)));
    const QImage img = w.grab().toImage();
    QCOMPARE(img.pixel(pos.toPoint()), w.colorOf(m(row, col)));
  }

  void minimapClickMovesTheViewport() {
    ZoomableHeatmap w;
    w.resize(700, 600);
    w.show();
    w.setPyramid(pyramidOf(uniform(2000, 2000)), {}, {});
    QVERIFY(w.minimapRect().isEmpty());  // all in view: no minimap
    w.zoomBy(10, w.plotRect().topLeft());
    const QRect mini = w.minimapRect();
    QVERIFY(!mini.isEmpty());
    QVERIFY(w.visibleCells().center().x() < 500);
    // A click three quarters along the minimap's width and half way down centres the view at (1500, 1000).
    click(w, QPointF(mini.left() + mini.width() * 0.75, mini.top() + mini.height() * 0.5));
    QVERIFY(std::abs(w.visibleCells().center().x() - 1500) < 2000.0 / mini.width() + 1);
    QVERIFY(std::abs(w.visibleCells().center().y() - 1000) < 2000.0 / mini.height() + 1);
  }
};

ATTNLAB_TEST_MAIN(TestZoomableHeatmap)
#include "test_zoomable_heatmap.moc"
