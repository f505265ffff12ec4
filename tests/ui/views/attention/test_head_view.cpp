// The head view: lines per head above the threshold, hover and pin, head swatches, numbers.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/plots/figure_export.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/view_export.h"
#include "ui/views/attention/head_view.h"
#include "ui/views/attention/head_view_legend.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestHeadView : public QObject {
  Q_OBJECT
  ResultPtr run(const std::string& sentence, int heads, bool causal = false) {
    Params p;
    p.sentence = sentence;
    p.model.heads = heads;
    p.model.causal = causal;
    return LiveController::compute(p, nullptr, {});
  }
  /// Image rows with drawn pixels: anything that is neither the plot's white nor the window's grey.
  static double drawnRowFraction(const QImage& img, QRgb window) {
    int drawn = 0;
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x) {
        const QRgb c = img.pixel(x, y);
        if (c != window && qGray(c) < 235) {
          ++drawn;
          break;
        }
      }
    return double(drawn) / img.height();
  }
  QPoint tokenCentre(HeadViewCanvas* c, int side, int token) {
    for (int y = 0; y < c->height(); y += 2)
      for (int x = 0; x < c->width(); x += 3) {
        int s, t;
        if (c->tokenAt({x, y}, &s, &t) && s == side && t == token) return {x + 4, y + 3};
      }
    return {};
  }

 private slots:
  void thresholdDecidesWhichLinesAreDrawn_data() {
    QTest::addColumn<double>("threshold");
    QTest::addColumn<bool>("everyLine");
    QTest::newRow("0: every weight") << 0.0 << true;
    QTest::newRow("0.2: fewer") << 0.2 << false;
  }
  void thresholdDecidesWhichLinesAreDrawn() {
    QFETCH(double, threshold);
    QFETCH(bool, everyLine);
    HeadView v;
    v.resize(800, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    const ResultPtr r = run("mary gave roses to susan", 4);
    v.showResult(r);
    QApplication::processEvents();  // the scroll area lays the canvas out
    v.setThreshold(threshold);
    v.canvas()->repaint();
    int expected = 0;
    for (const HeadTrace& h : r->trace().layers[0].heads)
      expected += static_cast<int>((h.attention.array() >= threshold).count());
    QCOMPARE(v.canvas()->linesDrawn(), expected);
    if (everyLine) QCOMPARE(expected, 4 * 5 * 5);
  }

  void causalHasNoLineIntoTheFuture() {
    HeadView v;
    v.resize(800, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.showResult(run("a b c d", 2, true));
    QApplication::processEvents();
    v.setThreshold(0.0);
    v.canvas()->repaint();
    QCOMPARE(v.canvas()->linesDrawn(), 2 * (1 + 2 + 3 + 4));  // masked weights are exactly 0
  }

  void swatchesHideHeads() {
    HeadView v;
    v.resize(800, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.showResult(run("mary gave roses to susan", 4));
    QApplication::processEvents();
    v.setThreshold(0.0);
    const auto swatches = v.findChildren<QPushButton*>();
    QCOMPARE(swatches.size(), 4);
    swatches[0]->click();
    QVERIFY(!v.canvas()->headVisible(0));
    v.canvas()->repaint();
    QCOMPARE(v.canvas()->linesDrawn(), 3 * 25);
    for (int h = 1; h < 4; ++h) v.setHeadVisible(h, false);
    v.canvas()->repaint();
    QCOMPARE(v.canvas()->linesDrawn(), 0);
  }

  void hoverFocusesAndClickPins() {
    HeadView v;
    v.resize(800, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.showResult(run("mary gave roses to susan", 2));
    QApplication::processEvents();
    v.setThreshold(0.0);
    HeadViewCanvas* c = v.canvas();
    const QPoint gave = tokenCentre(c, 0, 1);
    QVERIFY(!gave.isNull());
    QTest::mouseMove(c, gave);
    QTRY_COMPARE(c->focusToken(), 1);
    QCOMPARE(c->focusSide(), 0);
    c->repaint();
    QCOMPARE(c->linesDrawn(), 2 * 5);  // only "gave"'s row, every head
    QTest::mouseClick(c, Qt::LeftButton, {}, gave);
    QVERIFY(c->pinned());
    QTest::mouseMove(c, tokenCentre(c, 1, 3));  // pinned: hovering elsewhere changes nothing
    QCOMPARE(c->focusToken(), 1);
    QTest::mouseClick(c, Qt::LeftButton, {}, gave);  // a second click unpins
    QVERIFY(!c->pinned());
    const QPoint key = tokenCentre(c, 1, 4);
    QTest::mouseMove(c, key);
    QTRY_COMPARE(c->focusSide(), 1);
    QCOMPARE(c->focusToken(), 4);
  }

  void perHeadColumnsDrawEveryHeadApart() {
    HeadView v;
    v.resize(1000, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.showResult(run("mary gave roses to susan", 4));
    QApplication::processEvents();
    v.setThreshold(0.0);
    HeadViewCanvas* c = v.canvas();
    QCOMPARE(int(c->panels().size()), 1);  // overlay: one pair of columns for every head
    QCOMPARE(c->panels()[0].head, -1);
    v.findChild<QComboBox*>()->setCurrentIndex(1);
    QVERIFY(c->perHeadColumns());
    v.setHeadVisible(1, false);
    const auto panels = c->panels();
    QCOMPARE(int(panels.size()), 3);  // one per shown head, side by side, not overlapping
    QCOMPARE(panels[1].head, 2);
    for (std::size_t i = 1; i < panels.size(); ++i) QVERIFY(panels[i].left > panels[i - 1].right);
    c->repaint();
    QCOMPARE(c->linesDrawn(), 3 * 25);  // the same lines, now apart
    // One key for all: the legend names the shown heads and keeps one opacity scale.
    QCOMPARE(v.legend()->shownHeads(), (std::vector<int>{0, 2, 3}));
    // Hovering a query in the leftmost column still focuses it, across every head's column.
    const QPoint gave = tokenCentre(c, 0, 1);
    QVERIFY(!gave.isNull());
    QTest::mouseMove(c, gave);
    QTRY_COMPARE(c->focusToken(), 1);
    c->repaint();
    QCOMPARE(c->linesDrawn(), 3 * 5);
  }

  void titleNamesTheShownHeads() {
    HeadView v;
    v.showResult(run("mary gave roses to susan", 4));
    QVERIFY(v.title().contains("all 4 heads"));
    v.setHeadVisible(0, false);
    v.setHeadVisible(2, false);
    QVERIFY2(v.title().contains("heads 1, 3 of 4"), qPrintable(v.title()));
    v.findChildren<QPushButton*>()[3]->click();  // the swatch hides head 3 too
    QVERIFY2(v.title().contains("head 1 of 4"), qPrintable(v.title()));
    QVERIFY(!v.title().contains("all"));
  }

  void aNewSentenceForgetsTheFocusedToken() {
    HeadView v;
    v.resize(800, 600);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.showResult(run("mary gave roses to susan", 2));
    QApplication::processEvents();
    v.canvas()->setFocusToken(0, 3, true);             // "to", pinned
    v.showResult(run("mary gave roses to susan", 2));  // the same tokens (another head count): kept
    QCOMPARE(v.canvas()->focusToken(), 3);
    v.showResult(run("the cat walks on the street", 2));  // index 3 is now "on": not what was pinned
    QCOMPARE(v.canvas()->focusToken(), -1);
    QVERIFY(!v.canvas()->pinned());
  }

  void exportedFigureIsThePlotOverItsWholeHeight() {
    QString error;
    const auto view =
        makeOffscreenView("headview", run("the cat walks on the street", 4), QSize(1200, 900), 1.0, &error);
    QVERIFY2(view, qPrintable(error));
    for (const auto* w : view->findChildren<QWidget*>()) {
      const bool control =
          qobject_cast<const QPushButton*>(w) || qobject_cast<const QSlider*>(w) || qobject_cast<const QComboBox*>(w);
      QVERIFY2(!(control && w->isVisibleTo(view.get())), w->metaObject()->className());
    }
    const QImage img = renderWidgetImage(view.get(), 1.0);
    const double fraction = drawnRowFraction(img, view->palette().window().color().rgb());
    QVERIFY2(fraction > 0.7, qPrintable(QString::number(fraction)));
  }

  void numbersAreEveryHeadOfTheLayer() {
    HeadView v;
    const ResultPtr r = run("mary gave roses to susan", 4);
    v.showResult(r);
    const ViewNumbers n = v.numbers(*r);
    QCOMPARE(n.matrices.size(), std::size_t(4));
    QCOMPARE(n.matrices[2].name, std::string("attention_L0_H2"));
    QVERIFY(n.matrices[2].values.isApprox(r->trace().layers[0].heads[2].attention.cast<double>()));
    QCOMPARE(n.matrices[2].rowLabels[3], std::string("to"));
  }
};

ATTNLAB_TEST_MAIN(TestHeadView)
#include "test_head_view.moc"
