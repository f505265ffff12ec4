// The sliding-window shades of a MatrixPlot (issue 31 review): one grey rectangle per row that reaches past the window
// (rows window … n − 1: n − window of them), made when the map, the window or the colour changes — not remade on every
// hover move, which on a long map meant thousands of items deleted and created per mouse move.
#include <QPointer>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

QStringList labels(int n) {
  QStringList out;
  for (int i = 0; i < n; ++i) out << QString("t%1").arg(i);
  return out;
}

std::vector<QPointer<QCPAbstractItem>> items(MatrixPlot& plot) {
  std::vector<QPointer<QCPAbstractItem>> out;
  for (int i = 0; i < plot.itemCount(); ++i) out.emplace_back(plot.item(i));
  return out;
}

}  // namespace

class TestWindowShades : public QObject {
  Q_OBJECT
 private slots:
  void hoverKeepsTheShades() {
    constexpr int n = 300, window = 4;
    MatrixPlot plot;
    plot.resize(600, 600);
    plot.setTokenAxes(true, true);
    plot.setMatrix(Mat::Constant(n, n, 1.0f / n), labels(n), labels(n));
    plot.setWindow(window);
    QCOMPARE(plot.itemCount(), n - window);  // the shades alone: no hover, no pins
    const auto shades = items(plot);
    // A token hovered: its row and its column get a band each (2 items); the shades stay the very same items.
    for (int t : {10, 11, 250, 12}) {
      plot.setTokenMarks({}, t);
      QCOMPARE(plot.itemCount(), n - window + 2);
      for (const auto& s : shades) QVERIFY(!s.isNull());
    }
    // The mouse over cells of the hovered row: the column band follows the cursor, the shades stay.
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    for (int col : {3, 5, 9}) {
      const QPoint at(static_cast<int>(plot.xAxis->coordToPixel(col)), static_cast<int>(plot.yAxis->coordToPixel(12)));
      QTest::mouseMove(&plot, at);
      QCoreApplication::processEvents();
      QCOMPARE(plot.itemCount(), n - window + 2);
    }
    for (const auto& s : shades) QVERIFY(!s.isNull());
    // Another window: the shades are remade for it (n − 8 rows reach past a window of 8).
    plot.setWindow(8);
    QCOMPARE(plot.itemCount(), n - 8 + 2);
    for (const auto& s : shades) QVERIFY(s.isNull());
    plot.setWindow(0);
    QCOMPARE(plot.itemCount(), 2);
  }
};

ATTNLAB_TEST_MAIN(TestWindowShades)
#include "test_window_shades.moc"
