// The Activation patching view on a real checkpoint (tests/reference/models/gpt2_tiny, 2 layers × 4 heads):
// its maps are activationPatching's numbers; texts of different token lengths and unknown tokens get a
// message and start nothing; Enter in an editor asks for the edited parameters; a click on a head selects
// it; a new sentence with the same model and patching inputs does not recompute; the built-in model (no
// unembedding) gets a message and no numbers.
#include <QComboBox>
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

/// ATTNLAB_LAYOUT_SHOTS=DIR: the view as the test left it, to look at.
void shot(QWidget& view, const char* name) {
  if (const QString dir = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !dir.isEmpty()) {
    for (int round = 0; round < 8; ++round) QApplication::processEvents();
    view.grab().save(QString("%1/%2.png").arg(dir, name));
  }
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

  void cancelIsFinalEvenForAFinishedMap() {
    // Issue 31 review: a map that was computed but not yet delivered when Cancel was pressed must not be drawn.
    const ResultPtr r = compute(patchingParams());
    PatchingView view;
    view.showResult(r);
    const auto jobs = view.findChildren<BackgroundJob*>();
    QCOMPARE(jobs.size(), qsizetype(1));
    jobs.front()->waitForIdle();  // the map is computed; its delivery waits in the event queue
    view.controls()->cancelButton()->click();
    for (int round = 0; round < 8; ++round) QTest::qWait(10);
    QVERIFY(view.isReady());
    QVERIFY(!view.controls()->cancelButton()->isVisibleTo(view.controls()));
    QVERIFY(view.numbers(*r).matrices.empty());
    QVERIFY(!view.headsPlot()->isVisibleTo(&view));
    QVERIFY(view.controls()->status().startsWith("Cancelled: no map"));
    // Run computes it again and this time it is drawn.
    view.controls()->runButton()->click();
    view.waitForAnalyses();
    QVERIFY(matrix(view.numbers(*r), "patching_heads"));
    QCOMPARE(view.runsStarted(), 2);
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
    QVERIFY2(hint().startsWith("Costs up to 26 patched runs"), qPrintable(hint()));
    // Typing back to the same length clears it, and the hint counts the typed text (8 + 3 · 9 = 35; it kept 26);
    // an unknown token gets resolveToken's message.
    view.controls()->corruptEdit()->setText(kCorrupt);
    emit view.controls()->inputsTyped();
    QVERIFY(!view.controls()->statusIsError());
    QVERIFY2(hint().startsWith("Costs up to 35 patched runs"), qPrintable(hint()));
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

  // Issue 31: a map of model A under model B's error is cleared, and the status says why.
  void anotherModelsTokensClearTheMap() {
    const ResultPtr a = compute(patchingParams());
    PatchingView view;
    view.resize(900, 600);
    view.show();
    view.showResult(a);
    view.waitForAnalyses();
    QVERIFY(view.headsPlot()->isVisible());
    QVERIFY(matrix(view.numbers(*a), "patching_heads"));
    // gemma-mqa splits " roses" in two: with its BOS 14 and 16 tokens, so the pair does not apply to it.
    Params pb = patchingParams();
    pb.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/gemma-mqa";
    const ResultPtr b = compute(pb);
    QVERIFY2(b->ok(), qPrintable(b->error));
    view.showResult(b);
    view.waitForAnalyses();
    QVERIFY(view.controls()->statusIsError());
    QVERIFY2(view.controls()->status().startsWith("clean has 14 tokens, corrupt has 16"),
             qPrintable(view.controls()->status()));
    QVERIFY2(view.controls()->status().contains("The map was cleared: it belonged to"),
             qPrintable(view.controls()->status()));
    QVERIFY(!view.headsPlot()->isVisible());
    QVERIFY(!view.residPlot()->isVisible());
    QVERIFY(view.numbers(*b).matrices.empty());
    QVERIFY(view.numbers(*a).matrices.empty());  // forgotten, not just hidden
    QCOMPARE(view.runsStarted(), 1);
    // Back on model A the map is computed again and shown.
    view.showResult(compute(patchingParams(), a->run->model));
    view.waitForAnalyses();
    QVERIFY(view.headsPlot()->isVisible());
    QVERIFY(!view.controls()->statusIsError());
  }

  // Issue 31: the heads switched off stay off in every run of the map, and the view says so; another set of heads
  // recomputes it.
  void patchesOnTopOfAblations() {
    Params p = patchingParams();
    p.prediction.ablate = {{0, 1}, {1, 3}};
    p.prediction.ablationMode = AblationMode::Mean;
    const ResultPtr r = compute(p);
    PatchingView view;
    view.showResult(r);
    view.waitForAnalyses();
    const Model& m = *r->run->model;
    PatchingOptions o;
    o.ablation.ablate = p.prediction.ablate;
    o.ablation.mode = AblationMode::Mean;
    const PatchingResult expected = activationPatching(m, m.tokenize(kClean), m.tokenize(kCorrupt),
                                                       resolveToken(m, " cat"), resolveToken(m, "Ġthe"), {}, o);
    const ViewNumbers numbers = view.numbers(*r);
    const LabelledMatrix* heads = matrix(numbers, "patching_heads");
    QVERIFY(heads && heads->values.isApprox(expected.heads, 1e-9));
    QVERIFY(matrix(numbers, "patching_resid")->values.isApprox(expected.resid, 1e-9));
    QVERIFY2(view.summary().contains("Patched on top of the ablations in force:</b> heads 0.1, 1.3 (mean)"),
             qPrintable(view.summary()));
    const PatchingResult plain = activationPatching(m, m.tokenize(kClean), m.tokenize(kCorrupt),
                                                    resolveToken(m, " cat"), resolveToken(m, "Ġthe"));
    QVERIFY(!heads->values.isApprox(plain.heads, 1e-3));  // the ablations do change the map
    p.prediction.ablate.clear();
    const ResultPtr on = compute(p, r->run->model);
    QVERIFY(view.numbers(*on).matrices.empty());  // the map is the ablated runs', not this result's
    view.showResult(on);
    view.waitForAnalyses();
    QCOMPARE(view.runsStarted(), 2);
    QVERIFY(matrix(view.numbers(*on), "patching_heads")->values.isApprox(plain.heads, 1e-9));
    QVERIFY(!view.summary().contains("ablations"));
  }

  // Issue 31: heads only, positions only, head × position; progress with the time left; the small-span warning.
  void mapChoiceProgressAndWarning() {
    const ResultPtr r = compute(patchingParams());
    PatchingView view;
    view.resize(1000, 620);  // the view's part of a 1280 × 720 window
    view.show();
    view.showResult(r);
    view.waitForAnalyses();
    const Model& m = *r->run->model;
    const TokenizedText clean = m.tokenize(kClean), corrupt = m.tokenize(kCorrupt);
    const int target = resolveToken(m, " cat"), versus = resolveToken(m, "Ġthe");
    QComboBox* box = view.controls()->mapBox();
    box->setCurrentIndex(box->findData(static_cast<int>(PatchMap::HeadPositions)));
    emit box->activated(box->currentIndex());
    view.waitForAnalyses();
    QCOMPARE(view.runsStarted(), 2);
    PatchingOptions o;
    o.map = PatchMap::HeadPositions;
    const PatchingResult cells = activationPatching(m, clean, corrupt, target, versus, {}, o);
    const ViewNumbers n = view.numbers(*r);
    QCOMPARE(n.matrices.size(), std::size_t(1));
    QCOMPARE(n.matrices[0].name, std::string("patching_head_positions"));
    QVERIFY(n.matrices[0].values.isApprox(cells.headPositions, 1e-9));
    QCOMPARE(n.matrices[0].rowLabels[5], std::string("L1H1"));
    QVERIFY(!view.headsPlot()->isVisible());
    QVERIFY(view.residPlot()->isVisible());
    QCOMPARE(view.residPlot()->rows(), 8);
    shot(view, "patching_head_position");
    box->setCurrentIndex(box->findData(static_cast<int>(PatchMap::Heads)));
    emit box->activated(box->currentIndex());
    view.waitForAnalyses();
    QVERIFY(view.headsPlot()->isVisible());
    QVERIFY(!view.residPlot()->isVisible());
    QCOMPARE(view.numbers(*r).matrices.size(), std::size_t(1));
    // The time left: elapsed · (1 − f) / f.
    QCOMPARE(PatchingControls::timeLeft(80), QString("about 1 min 20 s left"));
    QCOMPARE(PatchingControls::timeLeft(3.4), QString("about 3 s left"));
    view.controls()->setBusy(true);
    QTest::qWait(150);
    view.controls()->setProgress(0.25);
    QVERIFY2(view.controls()->progressText().startsWith("25 % · about "), qPrintable(view.controls()->progressText()));
    view.controls()->setBusy(false);
    QVERIFY(view.controls()->progressText().isEmpty());
    // A versus whose difference barely moves between the texts: the warning.
    const Trace c = m.forward(clean), k = m.forward(corrupt);
    const Vec delta = rowLogits(*m.unembedding(), c.layers.back().residualOut.bottomRows(1).transpose()) -
                      rowLogits(*m.unembedding(), k.layers.back().residualOut.bottomRows(1).transpose());
    int small = -1;
    for (int v = 0; v < delta.size(); ++v)
      if (v != target && delta(target) != delta(v) &&
          (small < 0 || std::abs(delta(target) - delta(v)) < std::abs(delta(target) - delta(small))))
        small = v;
    QVERIFY(std::abs(delta(target) - delta(small)) < kMinPatchingSpan);
    Params p = patchingParams();
    p.prediction.patchVersus = std::to_string(small);
    view.showResult(compute(p, r->run->model));
    view.waitForAnalyses();
    QVERIFY2(view.summary().contains("Warning: clean − corrupt is only"), qPrintable(view.summary()));
    shot(view, "patching_heads_warning");
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
