// The Activation patching view on a real checkpoint (tests/reference/models/gpt2_tiny, 2 layers × 4 heads):
// its maps are activationPatching's numbers; texts of different token lengths and unknown tokens get a
// message and start nothing; Enter in an editor asks for the edited parameters; a click on a head selects
// it; a new sentence with the same model and patching inputs does not recompute; the built-in model (no
// unembedding) gets a message and no numbers.
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/views/prediction/patching_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

// Every word is one token of gpt2_tiny's small vocabulary, so both texts have 9 tokens.
constexpr char kClean[] = "the cat walked on the street and the cat";
constexpr char kCorrupt[] = "the roses walked on the street and the roses";

Params patchingParams(const std::string& sentence = "the cat sat on the mat") {
  Params p;
  p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";
  p.sentence = sentence;
  p.prediction.clean = kClean;
  p.prediction.corrupt = kCorrupt;
  p.prediction.patchTarget = " cat";
  p.prediction.patchVersus = "Ġthe";
  return p;
}

ResultPtr compute(const Params& p, std::shared_ptr<const Model> model = nullptr) {
  return LiveController::compute(p, std::move(model), {});
}

const LabelledMatrix* matrix(const ViewNumbers& n, const std::string& name) {
  for (const LabelledMatrix& m : n.matrices)
    if (m.name == name) return &m;
  return nullptr;
}

/// The centre of cell (row, col) of a plot, in its widget coordinates (columns on x, rows on y).
QPoint cellCentre(MatrixPlot* plot, int row, int col) {
  plot->replot();
  return QPointF(plot->xAxis->coordToPixel(col), plot->yAxis->coordToPixel(row)).toPoint();
}

}  // namespace

class TestPatchingView : public QObject {
  Q_OBJECT
 private slots:
  void mapsAreActivationPatching() {
    const ResultPtr r = compute(patchingParams());
    QVERIFY2(r->ok(), qPrintable(r->error));
    PatchingView view;
    view.showResult(r);
    // Busy until the map arrives on the GUI thread: the progress bar and Cancel show meanwhile.
    QVERIFY(!view.isReady());
    QVERIFY(view.controls()->progressBar()->isVisibleTo(view.controls()));
    QVERIFY(view.controls()->cancelButton()->isVisibleTo(view.controls()));
    view.waitForAnalyses();
    QVERIFY(view.isReady());
    QVERIFY(!view.controls()->cancelButton()->isVisibleTo(view.controls()));
    QVERIFY(!view.controls()->statusIsError());
    const Model& m = *r->run->model;
    const PatchingResult expected = activationPatching(m, m.tokenize(kClean), m.tokenize(kCorrupt),
                                                       resolveToken(m, " cat"), resolveToken(m, "Ġthe"));
    const ViewNumbers n = view.numbers(*r);
    const LabelledMatrix* heads = matrix(n, "patching_heads");
    const LabelledMatrix* resid = matrix(n, "patching_resid");
    QVERIFY(heads && resid);
    QCOMPARE(heads->values.rows(), Eigen::Index(2));
    QCOMPARE(heads->values.cols(), Eigen::Index(4));
    QVERIFY(heads->values.isApprox(expected.heads, 1e-9));
    QCOMPARE(resid->values.rows(), Eigen::Index(3));
    QCOMPARE(resid->values.cols(), Eigen::Index(9));
    QVERIFY(resid->values.isApprox(expected.resid, 1e-9));
    QCOMPARE(heads->rowLabels.front(), std::string("L0"));
    QCOMPARE(heads->colLabels.back(), std::string("H3"));
    QCOMPARE(resid->rowLabels.front(), std::string("emb→L0"));
    QCOMPARE(resid->rowLabels.back(), std::string("final"));
    QCOMPARE(resid->colLabels[1], std::string("Ġroses"));
    // Patching the final stream at the last position restores the clean difference exactly.
    QVERIFY(std::abs(resid->values(2, 8) - 1.0) < 1e-6);
    QCOMPARE(view.runsStarted(), 1);
    QCOMPARE(view.headsPlot()->rows(), 2);
    QCOMPARE(view.residPlot()->cols(), 9);
    // Both maps share one colour scale symmetric about 0.
    QCOMPARE(view.headsPlot()->colorRange().lower, -view.headsPlot()->colorRange().upper);
    QCOMPARE(view.residPlot()->colorRange().upper, view.headsPlot()->colorRange().upper);
  }

  void aNewSentenceDoesNotRecompute() {
    const ResultPtr r = compute(patchingParams());
    PatchingView view;
    view.showResult(r);
    view.waitForAnalyses();
    const ResultPtr typed = compute(patchingParams("the cat walked"), r->run->model);
    view.showResult(typed);
    view.waitForAnalyses();
    QCOMPARE(view.runsStarted(), 1);
    QVERIFY(matrix(view.numbers(*typed), "patching_heads"));  // the map still belongs to the new result
    Params changed = patchingParams("the cat walked");
    changed.prediction.patchVersus = "Ġcat";
    changed.prediction.patchTarget = "Ġthe";
    const ResultPtr edited = compute(changed, r->run->model);
    const MatD before = matrix(view.numbers(*typed), "patching_heads")->values;
    view.showResult(edited);
    view.waitForAnalyses();
    QCOMPARE(view.runsStarted(), 2);
    QVERIFY(view.numbers(*typed).matrices.empty());  // the map is no longer the old inputs'
    const LabelledMatrix* swapped = matrix(view.numbers(*edited), "patching_heads");
    QVERIFY(swapped);
    // Swapping target and versus negates both differences: the normalised effects stay the same.
    QVERIFY(swapped->values.isApprox(before, 1e-6));
    // Run recomputes the same inputs on request.
    view.controls()->runButton()->click();
    view.waitForAnalyses();
    QCOMPARE(view.runsStarted(), 3);
  }

  void differentLengthsGetTheMessage() {
    Params p = patchingParams();
    p.prediction.corrupt = "the roses walked on the street";
    const ResultPtr r = compute(p);
    PatchingView view;
    view.showResult(r);
    view.waitForAnalyses();
    QVERIFY(view.controls()->statusIsError());
    QCOMPARE(view.controls()->status(), QString("clean has 9 tokens, corrupt has 6 — patching needs the same length"));
    QCOMPARE(view.runsStarted(), 0);
    QVERIFY(view.numbers(*r).matrices.empty());
    // The cost hint counts the corrupted text's 6 tokens: 2 layers · 4 heads + 3 · 6 = 26 passes.
    const auto hint = [&view] {
      for (QLabel* l : view.controls()->findChildren<QLabel*>())
        if (l->text().startsWith("Costs ")) return l->text();
      return QString();
    };
    QVERIFY2(hint().startsWith("Costs 26 forward passes"), qPrintable(hint()));
    // Typing back to the same length clears it, and the hint counts the typed text (8 + 3 · 9 = 35; it kept 26);
    // an unknown token gets resolveToken's message.
    view.controls()->corruptEdit()->setText(kCorrupt);
    emit view.controls()->inputsTyped();
    QVERIFY(!view.controls()->statusIsError());
    QVERIFY2(hint().startsWith("Costs 35 forward passes"), qPrintable(hint()));
    view.controls()->targetEdit()->setText("zebra crossing");
    emit view.controls()->inputsTyped();
    QVERIFY(view.controls()->statusIsError());
    QVERIFY(view.controls()->status().startsWith("unknown token \"zebra crossing\""));
    // Enter with a bad token asks for nothing.
    QSignalSpy asked(&view, &PatchingView::paramsRequested);
    QTest::keyClick(view.controls()->targetEdit(), Qt::Key_Return);
    QCOMPARE(asked.count(), 0);
  }

  void enterAsksForTheEditedParameters() {
    const ResultPtr r = compute(patchingParams());
    PatchingView view;
    view.showResult(r);
    view.waitForAnalyses();
    QSignalSpy asked(&view, &PatchingView::paramsRequested);
    QLineEdit* versus = view.controls()->versusEdit();
    QCOMPARE(versus->text(), QString("Ġthe"));
    versus->selectAll();
    QTest::keyClicks(versus, " on");
    QTest::keyClick(versus, Qt::Key_Return);
    QCOMPARE(asked.count(), 1);
    const Params p = asked.first().first().value<Params>();
    QCOMPARE(p.prediction.patchVersus, std::string(" on"));
    QCOMPARE(p.prediction.patchTarget, std::string(" cat"));
    QCOMPARE(p.prediction.clean, std::string(kClean));
    QCOMPARE(p.sentence, r->params.sentence);
  }

  void clickingAHeadSelectsIt() {
    const ResultPtr r = compute(patchingParams());
    PatchingView view;
    view.resize(900, 600);
    view.show();
    view.showResult(r);
    view.waitForAnalyses();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy selected(&view, &PatchingView::selectionRequested);
    const QPoint cell = cellCentre(view.headsPlot(), 1, 2);
    QMouseEvent move(QEvent::MouseMove, cell, view.headsPlot()->mapToGlobal(cell), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(view.headsPlot(), &move);
    QVERIFY2(view.headsPlot()->toolTip().startsWith("layer 1, head 2: effect"),
             qPrintable(view.headsPlot()->toolTip()));
    QTest::mouseClick(view.headsPlot(), Qt::LeftButton, {}, cell);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.first().at(0).toInt(), 1);
    QCOMPARE(selected.first().at(1).toInt(), 2);
  }

  void builtinModelGetsTheMessage() {
    Params p;
    p.sentence = "the cat sat on the mat";
    const ResultPtr r = compute(p);
    QVERIFY(r->ok());
    PatchingView view;
    view.show();
    view.showResult(r);
    view.waitForAnalyses();
    QVERIFY(view.message().contains("has no vocabulary"));
    QVERIFY(!view.controls()->isVisible());
    QCOMPARE(view.runsStarted(), 0);
    QVERIFY(view.numbers(*r).matrices.empty());
  }
};

ATTNLAB_TEST_MAIN(TestPatchingView)
#include "test_patching_view.moc"
