// Token selection shared by every view: hover a token anywhere and every view highlights it; click
// pins it (a parameter: undoable, saved, exported); Ctrl-click adds pins and the heatmap reads out
// their summed attention; Esc clears. Driven through the window as a user would (offscreen).
#include <QLabel>
#include <QLineEdit>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "core/session/token_pins.h"
#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/param_history.h"
#include "ui/views/attention/head_view.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/attention/model_grid_view.h"
#include "ui/views/common/token_selection.h"
#include "ui/views/inside_head/matrix_grid_view.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestTokenSelection : public QObject {
  Q_OBJECT

  HeatmapView* heatmap(MainWindow& w) { return static_cast<HeatmapView*>(w.view("heatmap")); }
  HeadView* headView(MainWindow& w) { return static_cast<HeadView*>(w.view("headview")); }
  std::vector<int> pins(MainWindow& w) { return w.controller()->params().selection.pinned; }

  /// A window on the default sentence (6 tokens), heatmap shown and laid out.
  void open(MainWindow& w) {
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_COMPARE(heatmap(w)->plot()->rows(), 6);
    heatmap(w)->plot()->replot();
  }
  /// Centre of row `token`'s label, left of the map.
  QPoint rowLabel(MatrixPlot* p, int token) {
    return {p->axisRect()->left() - 12, static_cast<int>(p->yAxis->coordToPixel(token))};
  }
  QPoint cell(MatrixPlot* p, int row, int col) {
    return {static_cast<int>(p->xAxis->coordToPixel(col)), static_cast<int>(p->yAxis->coordToPixel(row))};
  }
  /// The pins from a click on row 2's label.
  void pinTwo(MainWindow& w) {
    QTest::mouseClick(heatmap(w)->plot(), Qt::LeftButton, {}, rowLabel(heatmap(w)->plot(), 2));
    QTRY_COMPARE(pins(w), std::vector<int>{2});
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void clickingAnAxisLabelPinsInEveryView() {
    MainWindow w(false);
    open(w);
    pinTwo(w);
    QTRY_COMPARE(heatmap(w)->plot()->markedPins(), std::vector<int>{2});
    // Head view: token 2's lines alone, from the query column.
    w.showView("headview");
    HeadViewCanvas* c = headView(w)->canvas();
    int side = -1;
    QTRY_COMPARE(c->focusTokens(&side), std::vector<int>{2});
    QCOMPARE(side, 0);
    c->repaint();
    QVERIFY(c->linesDrawn() > 0);
    QVERIFY(c->linesDrawn() <= 4 * 6);  // at most one line per key and head: token 2's row only
    // Q/K/V: row 2 outlined in every panel, and in the scores its column too.
    w.showView("qkv");
    auto* qkv = static_cast<MatrixGridView*>(w.view("qkv"));
    QTRY_COMPARE(int(qkv->plots().size()), 4);
    for (MatrixPlot* p : qkv->plots()) QCOMPARE(p->markedPins(), std::vector<int>{2});
  }

  void ctrlClickAddsAPinAndTheSumsAreRead() {
    MainWindow w(false);
    open(w);
    pinTwo(w);
    MatrixPlot* plot = heatmap(w)->plot();
    QTest::mouseClick(plot, Qt::LeftButton, Qt::ControlModifier, cell(plot, 4, 1));
    QTRY_COMPARE(pins(w), (std::vector<int>{2, 4}));
    const ResultPtr r = w.controller()->lastResult();
    const Mat& a = r->trace().layers[r->layer()].heads[r->head()].attention;
    QTRY_COMPARE(heatmap(w)->pinSums().pins, (std::vector<int>{2, 4}));
    const HeatmapView::PinSums sums = heatmap(w)->pinSums();
    for (int j = 0; j < 6; ++j) {
      QVERIFY(std::abs(sums.fromPinned[j] - (a(2, j) + a(4, j))) < 1e-6);
      QVERIFY(std::abs(sums.toPinned[j] - (a(j, 2) + a(j, 4))) < 1e-6);
    }
    QVERIFY(heatmap(w)->pinTable()->isVisible());
    QVERIFY(heatmap(w)->pinTable()->text().contains("mean"));
    // Head view: both pinned queries' lines.
    w.showView("headview");
    QTRY_COMPARE(headView(w)->canvas()->focusTokens(), (std::vector<int>{2, 4}));
    w.showView("heatmap");

    // Esc clears (an undoable edit); undo brings the pins back.
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(plot, Qt::Key_Escape);
    QTRY_VERIFY(pins(w).empty());
    QTRY_VERIFY(plot->markedPins().empty());
    QVERIFY(!heatmap(w)->pinTable()->isVisible());
    w.history()->stack()->undo();
    QTRY_COMPARE(pins(w), (std::vector<int>{2, 4}));
    w.history()->stack()->undo();
    QTRY_COMPARE(pins(w), std::vector<int>{2});
  }

  void hoverInTheHeatmapIsSharedWithTheHeadView() {
    MainWindow w(false);
    open(w);
    w.showView("headview");  // shown once: it holds a result while the heatmap is on screen
    QTRY_VERIFY(headView(w)->canvas()->linesDrawn() > 0);
    w.showView("heatmap");
    MatrixPlot* plot = heatmap(w)->plot();
    plot->replot();
    QTest::mouseMove(plot, cell(plot, 3, 1));
    QTRY_COMPARE(w.tokenSelection()->hovered(), 3);
    QCOMPARE(plot->markedHover(), 3);
    QTest::mouseMove(plot, rowLabel(plot, 5));  // a label hovers its token too
    QTRY_COMPARE(w.tokenSelection()->hovered(), 5);
    QCOMPARE(headView(w)->canvas()->focusTokens(), std::vector<int>{5});
  }

  void theEditorShowsPinnedTokens() {
    MainWindow w(false);
    open(w);
    pinTwo(w);  // "walks": characters 8 to 13 of "the cat walks on the street"
    QTRY_COMPARE(w.editorTokens()->highlighted().size(), 1);
    const auto span = w.editorTokens()->highlighted().front();
    QCOMPARE(span.start, 8);
    QCOMPARE(span.length, 5);
    QVERIFY(span.pinned);
    QCOMPARE(w.editorTokens()->tokenAtPosition(5), 1);  // "cat"
  }

  // The model view's thumbnails outline the pinned rows and columns in the pins' orange.
  void modelViewThumbnailsShowThePins() {
    const auto orangePixels = [](const std::vector<int>& pins) {
      Params p;
      p.sentence = "mary gave roses to susan";
      p.selection.pinned = pins;
      ModelGridView v;
      v.resize(420, 320);
      v.showResult(LiveController::compute(p, nullptr, {}));
      const QImage img = v.grab().toImage();
      int count = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) count += img.pixel(x, y) == qRgb(0xFF, 0x5A, 0x1F);
      return count;
    };
    QCOMPARE(orangePixels({}), 0);
    QVERIFY(orangePixels({1}) > 100);
    QCOMPARE(orangePixels({99}), 0);  // past the end of the sentence: nothing drawn, no crash
  }

  void pinsPastTheEndAreIgnored() {
    MainWindow w(false);
    open(w);
    Params p = w.controller()->params();
    p.selection.pinned = {1, 40};
    w.applyParams(p);
    QTRY_COMPARE(heatmap(w)->plot()->markedPins(), std::vector<int>{1});
    QCOMPARE(heatmap(w)->pinSums().pins, std::vector<int>{1});
    w.showView("headview");
    QTRY_COMPARE(headView(w)->canvas()->focusTokens(), std::vector<int>{1});
    headView(w)->canvas()->repaint();
  }

  void pinsFollowTheirTokenThroughEdits() {
    // Issue 31: a pin on a token moved to whatever token had its index after new text was typed before it.
    MainWindow w(false);
    open(w);
    Params p = w.controller()->params();
    p.selection.pinned = {2, 5};  // "walks", "street" of "the cat walks on the street"
    w.applyParams(p);
    QTRY_COMPARE(heatmap(w)->plot()->markedPins(), (std::vector<int>{2, 5}));
    auto* editor = w.sentenceEditor();
    editor->setFocus();
    editor->setCursorPosition(0);
    QTest::keyClicks(editor, "so ");
    QCOMPARE(pins(w), (std::vector<int>{3, 6}));
    QTRY_COMPARE(w.controller()->lastResult()->params.sentence, std::string("so the cat walks on the street"));
    QCOMPARE(w.controller()->lastResult()->trace().tokens[3], std::string("walks"));
    QCOMPARE(w.controller()->lastResult()->trace().tokens[6], std::string("street"));
    QTRY_COMPARE(heatmap(w)->plot()->markedPins(), (std::vector<int>{3, 6}));
    // "walks" changed to "walked": its pin is dropped with a note; "street" after the edit keeps its pin.
    QTest::qWait(1100);           // a pause: the next typing is an undo step of its own
    editor->setSelection(14, 2);  // "ks"
    QTest::keyClicks(editor, "ked");
    QCOMPARE(pins(w), std::vector<int>{6});
    QVERIFY2(w.statusBar()->currentMessage().contains("“walks”"), qPrintable(w.statusBar()->currentMessage()));
    // Undo steps back through the typing (a keystroke that moved pins is a step of its own) and its pins.
    for (int i = 0; i < 20 && w.controller()->params().sentence != "so the cat walks on the street"; ++i)
      w.history()->stack()->undo();
    QCOMPARE(pins(w), (std::vector<int>{3, 6}));
    for (int i = 0; i < 20 && w.controller()->params().sentence != "the cat walks on the street"; ++i)
      w.history()->stack()->undo();
    QCOMPARE(pins(w), (std::vector<int>{2, 5}));
  }

  void theKeptTokenizationServesOnlyItsModelAndCut() {
    // carryPinsThroughEdit keeps the last text it tokenized (the next keystroke's old text, one tokenization per key
    // instead of two): the same text with another kept-last cut, or with another model, is tokenized again.
    Params p;
    p.sentence = "the cat walks on the street";
    const ResultPtr shown = LiveController::compute(p, nullptr, {});
    QVERIFY(shown->ok());
    Params typed = p;
    typed.sentence = "so the cat walks on the street";
    typed.selection.pinned = {5};  // "street"
    QVERIFY(carryPinsThroughEdit(typed, p.sentence, shown).empty());
    QCOMPARE(typed.selection.pinned, std::vector<int>{6});
    // The next key, with the last 4 tokens kept: the old text is the one just tokenized, but uncut. Cut, "street" is
    // its token 3 ("walks on the street") and token 2 of the new text ("on the street today").
    Params cut = typed;
    cut.sentence = typed.sentence + " today";
    cut.keepLastTokens = 4;
    cut.selection.pinned = {3};
    QVERIFY(carryPinsThroughEdit(cut, typed.sentence, shown).empty());
    QCOMPARE(cut.selection.pinned, std::vector<int>{2});
    // Another model (another seed of the built-in one, same word tokens) shown: tokenized with it, the same answer.
    Params other = p;
    other.model.seed = 7;
    const ResultPtr shownOther = LiveController::compute(other, nullptr, {});
    Params typedOther = other;
    typedOther.sentence = typed.sentence;
    typedOther.selection.pinned = {5};
    QVERIFY(carryPinsThroughEdit(typedOther, other.sentence, shownOther).empty());
    QCOMPARE(typedOther.selection.pinned, std::vector<int>{6});
  }

  void pinsAreSavedInSessions() {
    Params p;
    p.selection.pinned = {1, 3};
    const nlohmann::json j = toJson(p);
    QCOMPARE(QString::fromStdString(j["selection"]["pinned"].dump()), QString("[1,3]"));
    QCOMPARE(paramsFromJson(j).selection.pinned, (std::vector<int>{1, 3}));
    QCOMPARE(paramsFromJson(nlohmann::json::parse(R"({"selection": {"pinned": [3, 1, 3]}})")).selection.pinned,
             (std::vector<int>{1, 3}));
    QVERIFY(paramsFromJson(nlohmann::json::parse(R"({"selection": {"head": 1}})")).selection.pinned.empty());
    QVERIFY_THROWS_EXCEPTION(InputError, paramsFromJson(nlohmann::json::parse(R"({"selection": {"pinned": [-1]}})")));
    QVERIFY_THROWS_EXCEPTION(InputError, paramsFromJson(nlohmann::json::parse(R"({"selection": {"pinned": "2"}})")));
    QCOMPARE(parsePinList("5,2", "--pin"), (std::vector<int>{2, 5}));
    QCOMPARE(pinsAfterClick({2}, 2, false), std::vector<int>{});
    QCOMPARE(pinsAfterClick({2, 4}, 2, true), std::vector<int>{4});
  }

  void exportDrawsThePins() {
    QTemporaryDir dir;
    const QString plain = dir.filePath("plain.png"), pinned = dir.filePath("pinned.png");
    const AppRun a = runApp({"export", "--view", "heatmap", "--out", plain});
    QVERIFY2(a.code == 0, a.err.constData());
    const AppRun b = runApp({"export", "--view", "heatmap", "--pin", "1,3", "--out", pinned});
    QVERIFY2(b.code == 0, b.err.constData());
    const QImage x(plain), y(pinned);
    QVERIFY(!x.isNull() && !y.isNull());
    QVERIFY(x != y);
    const AppRun bad = runApp({"export", "--view", "heatmap", "--pin", "x", "--out", dir.filePath("bad.png")});
    QVERIFY(bad.code != 0);
    QVERIFY2(bad.err.contains("--pin") && bad.err.contains("2,5"), bad.err.constData());
    const AppRun past = runApp({"export", "--view", "headview", "--pin", "99", "--out", dir.filePath("past.png")});
    QVERIFY2(past.code == 0, past.err.constData());
  }
};

ATTNLAB_TEST_MAIN(TestTokenSelection)
#include "test_token_selection.moc"
