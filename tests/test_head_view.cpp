// The head view: lines per head above the threshold, hover and pin, head swatches, numbers.
#include <QPushButton>
#include <QtTest>

#include "ui/head_view.h"
#include "ui/live_controller.h"

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

QTEST_MAIN(TestHeadView)
#include "test_head_view.moc"
