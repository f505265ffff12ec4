// Side by side (issue 31): the two panes are the two runs' maps of the selected head, and the difference pane is their
// difference on the positions both have — checked against maps from the model's own forward passes, made here apart
// from the view (its worker, runPipeline, compareMaps), subtracted cell by cell. Swapping the texts negates the
// difference; without the ablation, a head switched off in layer 0 leaves layer 0's maps equal and changes layer 1's.
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include "core/run/model_factory.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/views/attention/compare_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// Head (l, h)'s map of `text` by `p`'s model, with `ablate` switched off: a forward pass of its own.
Mat referenceMap(const Params& p, const std::string& text, int l, int h, const std::vector<HeadRef>& ablate = {}) {
  const std::shared_ptr<const Model> model = makeModel(p);
  Intervention iv;
  iv.ablate = ablate;
  const Trace t = model->forward(model->tokenize(text), {}, iv);
  return t.layers[static_cast<std::size_t>(l)].heads[static_cast<std::size_t>(h)].attention;
}

/// got == b − a on the top-left common block, cell by cell.
void checkDifference(const Mat& got, const Mat& a, const Mat& b) {
  const Eigen::Index common = std::min(a.rows(), b.rows());
  QCOMPARE(got.rows(), common);
  QCOMPARE(got.cols(), common);
  for (Eigen::Index i = 0; i < common; ++i)
    for (Eigen::Index j = 0; j < common; ++j)
      QVERIFY2(std::abs(got(i, j) - (b(i, j) - a(i, j))) < 1e-6f,
               qPrintable(QString("cell (%1, %2): %3 vs %4").arg(i).arg(j).arg(got(i, j)).arg(b(i, j) - a(i, j))));
}

void checkEqual(const Mat& got, const Mat& expected) {
  QCOMPARE(got.rows(), expected.rows());
  QCOMPARE(got.cols(), expected.cols());
  QVERIFY(((got - expected).array().abs() < 1e-6f).all());
}

Params params(const std::string& sentence, int layer, int head) {
  Params p;
  p.sentence = sentence;
  p.selection.layer = layer;
  p.selection.head = head;
  return p;
}

/// The same result with another selection (what the window sends on a click on a head: no recompute).
ResultPtr withSelection(const ResultPtr& r, int layer, int head) {
  auto copy = std::make_shared<ComputeResult>(*r);
  copy->params.selection.layer = layer;
  copy->params.selection.head = head;
  return copy;
}

const std::string kWindow = "the cat sat on the mat today";  // 7 tokens
const std::string kSecond = "the dog sat on a mat";          // 6 tokens: the first is shared

}  // namespace

class TestCompareView : public QObject {
  Q_OBJECT
 private slots:
  void theDifferenceIsTheTwoMapsSubtracted() {
    CompareView v;
    v.resize(1000, 500);
    v.show();
    const Params p = params(kWindow, 1, 2);
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY(r->ok());
    v.showResult(r);
    // No second text yet: the window's map alone, and a message where the other would be.
    QCOMPARE(v.leftPlot()->rows(), 7);
    QVERIFY(!v.rightPlot()->isVisible());
    QCOMPARE(v.numbers(*r).matrices.size(), std::size_t(1));
    v.setSecondText(QString::fromStdString(kSecond));
    QTRY_VERIFY(v.otherRun() && v.differencePlot()->isVisible());
    const Mat a = referenceMap(p, kWindow, 1, 2), b = referenceMap(p, kSecond, 1, 2);
    checkEqual(v.leftPlot()->matrix(), a);
    checkEqual(v.rightPlot()->matrix(), b);
    checkDifference(v.differencePlot()->matrix(), a, b);
    QVERIFY(v.differencePlot()->matrix().cwiseAbs().maxCoeff() > 1e-3f);  // the texts differ: so do the maps
    QVERIFY2(v.caption()->text().contains("only on the 6 positions both have"), qPrintable(v.caption()->text()));
    QVERIFY2(v.caption()->text().contains("position 6 is only in A"), qPrintable(v.caption()->text()));
    // The exported numbers are the drawn ones: A, B and B − A.
    const ViewNumbers n = v.numbers(*r);
    QCOMPARE(n.matrices.size(), std::size_t(3));
    QCOMPARE(n.matrices[2].name, std::string("difference_L1_H2"));
    checkDifference(n.matrices[2].values.cast<float>(), a, b);
    QCOMPARE(n.matrices[1].rowLabels.front(), std::string("the"));
    QCOMPARE(n.matrices[1].rowLabels.back(), std::string("mat"));
  }

  void aLongTextShowsItsFirstPositionsFromTheirRowsAlone() {
    // Past kMaxPositions the panes hold the top-left block of the full map, made from its first rows only (the whole
    // map of a long input is past the map cache's budget: it threw out of numbers(), and an export ended the program).
    std::string text;
    for (int i = 0; i < 300; ++i) text += (i ? " " : "") + std::string(i % 3 ? "cat" : "the") + std::to_string(i % 7);
    const Params p = params(text, 1, 2);
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY(r->ok());
    QCOMPARE(r->trace().tokenCount(), 300);
    CompareView v;
    v.resize(1000, 500);
    v.show();
    v.showResult(r);
    const ViewNumbers n = v.numbers(*r);
    QCOMPARE(n.matrices.size(), std::size_t(1));
    const Mat full = referenceMap(p, text, 1, 2);
    const int shown = CompareView::kMaxPositions;
    checkEqual(n.matrices[0].values.cast<float>(), full.topLeftCorner(shown, shown));
  }

  void aSelectionRedrawsWithoutARunAndAModelSwitchRunsAgain() {
    CompareView v;
    v.show();
    const Params p = params(kWindow, 1, 2);
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    v.showResult(r);
    v.setSecondText(QString::fromStdString(kSecond));
    QTRY_VERIFY(v.otherRun());
    const ResultPtr first = v.otherRun();
    v.showResult(withSelection(r, 0, 1));
    QCOMPARE(v.otherRun(), first);  // the second text's run is kept: only the head changed
    checkDifference(v.differencePlot()->matrix(), referenceMap(p, kWindow, 0, 1), referenceMap(p, kSecond, 0, 1));
    // Another model (the built-in one with another seed): both sides are its maps.
    Params q = params(kWindow, 0, 1);
    q.model.seed = 7;
    const ResultPtr r2 = LiveController::compute(q, nullptr, {});
    v.showResult(r2);
    QTRY_VERIFY(v.otherRun() && v.otherRun()->run->model == r2->run->model && v.differencePlot()->isVisible());
    checkDifference(v.differencePlot()->matrix(), referenceMap(q, kWindow, 0, 1), referenceMap(q, kSecond, 0, 1));
  }

  void swappingTheTextsNegatesTheDifference() {
    CompareView v;
    v.show();
    const Params p = params(kWindow, 1, 0);
    v.showResult(LiveController::compute(p, nullptr, {}));
    v.setSecondText(QString::fromStdString(kSecond));
    QTRY_VERIFY(v.otherRun() && v.differencePlot()->isVisible());
    const Mat before = v.differencePlot()->matrix();
    QSignalSpy spy(&v, &CompareView::paramsRequested);
    v.swapTexts();
    QCOMPARE(spy.size(), 1);
    const Params swapped = spy.at(0).at(0).value<Params>();
    QCOMPARE(swapped.sentence, kSecond);
    QCOMPARE(v.secondText().toStdString(), kWindow);
    // The window runs the swapped text and hands its result back, as MainWindow does.
    const ResultPtr r2 = LiveController::compute(swapped, nullptr, {});
    v.showResult(r2);
    QTRY_VERIFY(v.otherRun() && v.otherRun()->params.sentence == kWindow && v.differencePlot()->isVisible());
    QCOMPARE(v.leftPlot()->rows(), 6);
    QCOMPARE(v.rightPlot()->rows(), 7);
    checkEqual(v.differencePlot()->matrix(), -before);
    QVERIFY2(v.caption()->text().contains("position 6 is only in B"), qPrintable(v.caption()->text()));
  }

  void withoutTheAblation() {
    CompareView v;
    v.show();
    v.setMode(CompareView::Mode::Ablation);
    Params p = params(kWindow, 1, 3);
    p.modelDir = "builtin:induction";  // the built-in random model cannot switch heads off; the trained tiny one can
    // No head switched off: nothing to compare, said so.
    v.showResult(LiveController::compute(p, nullptr, {}));
    QVERIFY(!v.rightPlot()->isVisible() || !v.leftPlot()->isVisible());
    QVERIFY2(v.caption()->text().contains("No head is switched off"), qPrintable(v.caption()->text()));
    p.prediction.ablate = {{0, 1}, {0, 2}};
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    v.showResult(r);
    QTRY_VERIFY2(v.otherRun() && v.differencePlot()->isVisible(), qPrintable(v.caption()->text()));
    QVERIFY(v.otherRun()->params.prediction.ablate.empty());
    // A: the plain run; B: the window's ablated run; B − A from two forward passes made here.
    const Mat plain = referenceMap(p, kWindow, 1, 3), ablated = referenceMap(p, kWindow, 1, 3, p.prediction.ablate);
    checkEqual(v.leftPlot()->matrix(), plain);
    checkEqual(v.rightPlot()->matrix(), ablated);
    checkDifference(v.differencePlot()->matrix(), plain, ablated);
    QVERIFY(v.differencePlot()->matrix().cwiseAbs().maxCoeff() > 1e-4f);
    QVERIFY2(v.caption()->text().contains("L0H1, L0H2"), qPrintable(v.caption()->text()));
    // Layer 0 is computed before the switched-off heads' outputs are used: its maps are equal, B − A exactly 0.
    v.showResult(withSelection(r, 0, 3));
    QCOMPARE(v.differencePlot()->matrix().rows(), 8);  // <bos> and the 7 words
    QCOMPARE(v.differencePlot()->matrix().cwiseAbs().maxCoeff(), 0.0f);
    QVERIFY2(v.caption()->text().contains("in layer 0 B − A is 0"), qPrintable(v.caption()->text()));
  }

  void aSecondTextTheModelRefusesIsAMessage() {
    CompareView v;
    v.show();
    Params p = params("the cat", 0, 0);
    p.modelDir = "builtin:induction";  // 33 positions, a BOS included
    v.showResult(LiveController::compute(p, nullptr, {}));
    std::string longText;
    for (int i = 0; i < 40; ++i) longText += "word ";
    v.setSecondText(QString::fromStdString(longText));
    QTRY_VERIFY2(v.caption()->text().contains("cannot be made"), qPrintable(v.caption()->text()));
    QVERIFY(!v.differencePlot()->isVisible());
    QCOMPARE(v.leftPlot()->rows(), 3);
  }

  void theOtherRunGoesWithItsModel() {
    // Issue 31: a model switched away from must not stay in memory through the view's other run (a whole trace, and
    // the model it holds), neither until the new model's other run arrives nor for ever when there is none to make.
    CompareView v;
    v.show();
    const Params p = params(kWindow, 1, 0);
    v.showResult(LiveController::compute(p, nullptr, {}));
    v.setSecondText(QString::fromStdString(kSecond));
    QTRY_VERIFY(v.otherRun());
    std::weak_ptr<const PipelineResult> otherA = v.otherRun()->run;
    std::weak_ptr<const Model> modelA = v.otherRun()->run->model;
    Params q = p;
    q.model.seed = 7;  // another model
    const ResultPtr b = LiveController::compute(q, nullptr, {});
    v.showResult(b);
    QVERIFY(otherA.expired());  // at once, while B's other run is being made
    QVERIFY(modelA.expired());
    QTRY_VERIFY(v.otherRun() && v.otherRun()->run->model == b->run->model && v.differencePlot()->isVisible());
    checkDifference(v.differencePlot()->matrix(), referenceMap(q, kWindow, 1, 0), referenceMap(q, kSecond, 1, 0));
    // No second text: nothing to compare, nothing kept.
    std::weak_ptr<const PipelineResult> otherB = v.otherRun()->run;
    v.setSecondText({});
    QVERIFY(otherB.expired());
    QVERIFY(!v.otherRun());
    QVERIFY2(v.caption()->text().contains("Type a second text"), qPrintable(v.caption()->text()));
  }
};

ATTNLAB_TEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
