// The Prediction view's controls on a real checkpoint (tests/reference/models/gpt2_tiny): the bars follow
// the temperature, top-k / top-p mark what sampling keeps (as core samplingKeeps says), ablated heads
// show their effect (as core ablationEffect computes it), editing a control emits the edited parameters,
// and Generate appends the greedy tokens of core generate() to the sentence, one edit per step.
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include "core/model/generate.h"
#include "core/predict/attribution.h"
#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/views/attention/model_grid_view.h"
#include "ui/views/prediction/attribution_view.h"
#include "ui/views/prediction/prediction_view.h"
#include "ui/views/prediction/token_generator.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

Params gpt2Params() {
  Params p;
  p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";
  p.sentence = "the cat sat on the mat and the cat";
  return p;
}

const LabelledMatrix* matrix(const ViewNumbers& n, const std::string& name) {
  for (const LabelledMatrix& m : n.matrices)
    if (m.name == name) return &m;
  return nullptr;
}

ViewNumbers shown(PredictionView& view, const ResultPtr& r) {
  view.showResult(r);
  view.waitForAnalyses();
  return view.numbers(*r);
}

}  // namespace

class TestPredictionControls : public QObject {
  Q_OBJECT
 private slots:
  void barsFollowTemperatureAndSampling() {
    Params p = gpt2Params();
    p.prediction.temperature = 0.5;
    p.prediction.topK = 3;
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    PredictionView view;
    const ViewNumbers numbers = shown(view, r);
    const LabelledMatrix* top = matrix(numbers, "prediction");
    QVERIFY(top);
    const int last = r->trace().tokenCount() - 1;
    const auto expected = predict(*r->run->model, r->trace(), last, PredictionView::kTop, 0.5);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      QVERIFY(std::abs(top->values(Eigen::Index(i), 1) - expected[i].prob) <= 1e-5);  // the lens's product vs one row
      QCOMPARE(top->values(Eigen::Index(i), 2), i < 3 ? 1.0 : 0.0);                   // top-k 3 keeps the first three
    }
    // top-p: the kept set is core's, bar for bar.
    p.prediction.topK = 0;
    p.prediction.topP = 0.3;
    const ResultPtr q = LiveController::compute(p, nullptr, {});
    const ViewNumbers nucleusNumbers = shown(view, q);
    const LabelledMatrix* nucleus = matrix(nucleusNumbers, "prediction");
    const Vec logits =
        rowLogits(*q->run->model->unembedding(), q->trace().layers.back().residualOut.row(last).transpose());
    const auto keeps = samplingKeeps(*q->run->model, logits, 0.5, 0, 0.3);
    QVERIFY(!keeps.empty() && keeps.size() < std::size_t(PredictionView::kTop));
    for (Eigen::Index i = 0; i < nucleus->values.rows(); ++i)
      QCOMPARE(nucleus->values(i, 2), std::size_t(i) < keeps.size() ? 1.0 : 0.0);
  }

  void ablationShowsItsEffect() {
    Params p = gpt2Params();
    p.prediction.ablate = {{0, 0}, {1, 1}};
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    PredictionView view;
    const ViewNumbers first = shown(view, r);
    const LabelledMatrix* a = matrix(first, "ablation");
    QVERIFY(a);
    // The same numbers from core: the plain run, then the ablated one.
    const Model& m = *r->run->model;
    const Trace plain = m.forward(r->run->text);
    Intervention iv;
    iv.ablate = p.prediction.ablate;
    const AblationEffect e = ablationEffect(m, r->run->text, plain, iv);
    QCOMPARE(int(a->values(0, 0)), e.target);
    QVERIFY(std::abs(a->values(0, 1) - e.cleanProb) < 1e-9);
    QVERIFY(std::abs(a->values(0, 2) - e.ablatedProb) < 1e-6);
    QVERIFY(std::abs(a->values(0, 3) - e.kl) < 1e-6);
    QVERIFY(e.kl > 0.0);
    // Without ablation there is no comparison.
    QVERIFY(!matrix(shown(view, LiveController::compute(gpt2Params(), r->run->model, {})), "ablation"));
    // The plain run just shown is kept: switching the heads off now compares with it (no second forward pass),
    // with the same numbers.
    const ResultPtr again = LiveController::compute(p, r->run->model, {});
    const ViewNumbers second = shown(view, again);
    const LabelledMatrix* b = matrix(second, "ablation");
    QVERIFY(b);
    for (Eigen::Index j = 0; j < 4; ++j) QVERIFY(std::abs(b->values(0, j) - a->values(0, j)) < 1e-6);
  }

  void editingAControlEmitsTheParameters() {
    const ResultPtr r = LiveController::compute(gpt2Params(), nullptr, {});
    PredictionView view;
    view.showResult(r);
    QSignalSpy spy(&view, &TraceView::paramsRequested);
    auto* temperature = view.findChild<QDoubleSpinBox*>();
    QVERIFY(temperature);
    temperature->setValue(0.25);
    QCOMPARE(spy.count(), 1);
    const Params p = spy.at(0).at(0).value<Params>();
    QCOMPARE(p.prediction.temperature, 0.25);
    QCOMPARE(p.sentence, r->params.sentence);
  }

  void generateAppendsTheGreedyTokens() {
    const ResultPtr r = LiveController::compute(gpt2Params(), nullptr, {});
    PredictionView view;
    view.showResult(r);
    view.waitForAnalyses();
    QSignalSpy spy(&view, &TraceView::paramsRequested);
    view.generate(4);
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 4, 20000);
    const auto expected = generate(*r->run->model, r->run->text.ids, 4, SamplingOptions{});
    std::string text = r->params.sentence;
    for (int i = 0; i < 4; ++i) {
      text += TokenGenerator::appendedBytes(expected[std::size_t(i)].piece, "byte-level");
      // One edit per step, the text so far.
      QCOMPARE(QString::fromStdString(spy.at(i).at(0).value<Params>().sentence), QString::fromStdString(text));
    }
    QTRY_VERIFY(!view.generating());
    // Issue 31: the step line stays with its text and model, and goes with another model ("Step 1: “alues”" stayed).
    const auto stepLine = [&view]() -> QLabel* {
      for (QLabel* l : view.findChildren<QLabel*>())
        if (l->text().startsWith("Step ")) return l;
      return nullptr;
    };
    QVERIFY(stepLine());
    QVERIFY(stepLine()->text().startsWith("Step 4: "));
    view.showResult(LiveController::compute(spy.last().at(0).value<Params>(), r->run->model, {}));
    QVERIFY(stepLine() && !stepLine()->isHidden());
    view.showResult(LiveController::compute(Params{}, nullptr, {}));  // the built-in model
    QVERIFY(!stepLine());
  }

  void generateWithoutAVocabularyIsAMessage() {
    Params p;  // the built-in model: no unembedding
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    PredictionView view;
    view.showResult(r);
    QSignalSpy spy(&view, &TraceView::paramsRequested);
    view.generate(3);
    QVERIFY(!view.generating());
    QCOMPARE(spy.count(), 0);
    for (QPushButton* b : view.findChildren<QPushButton*>())
      if (b->text().contains("Generate")) QVERIFY(b->isHidden());
  }

  void attributionOfAChosenTargetVersusAnother() {
    Params p = gpt2Params();
    p.prediction.target = " cat";  // text that is one token
    p.prediction.versus = "Ġon";   // a piece
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    AttributionView view;
    view.showResult(r);
    view.waitForAnalyses();
    const ViewNumbers n = view.numbers(*r);
    QCOMPARE(n.matrices.size(), std::size_t(1));
    const Model& m = *r->run->model;
    const int last = r->trace().tokenCount() - 1;
    const Attribution a = directLogitAttribution(m, r->trace(), headContributions(m, r->run->text, r->trace(), last),
                                                 resolveToken(m, "Ġcat"), resolveToken(m, "Ġon"));
    QCOMPARE(a.versus, resolveToken(m, "Ġon"));
    for (Eigen::Index l = 0; l < a.heads.rows(); ++l)
      for (Eigen::Index h = 0; h < a.heads.cols(); ++h)
        QVERIFY(std::abs(n.matrices[0].values(l, h) - a.heads(l, h)) < 1e-4);  // W_O read once: float rounding
    QVERIFY(QString::fromStdString(n.title).contains("−"));
    // An unknown token: resolveToken's message, no numbers.
    p.prediction.target = "Ġnosuchpiecezz";
    const ResultPtr bad = LiveController::compute(p, nullptr, {});
    view.showResult(bad);
    view.waitForAnalyses();
    QVERIFY(view.numbers(*bad).matrices.empty());
  }

  void ctrlClickSwitchesAHeadOff() {
    Params p = gpt2Params();
    p.prediction.ablate = {{1, 0}};
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    AttributionView view;
    view.showResult(r);
    view.waitForAnalyses();
    auto* plot = view.findChild<MatrixPlot*>();
    QVERIFY(plot);
    QVERIFY((plot->crossedCells() == std::vector<std::pair<int, int>>{{1, 0}}));
    QSignalSpy params(&view, &TraceView::paramsRequested), select(&view, &TraceView::selectionRequested);
    emit plot->cellClicked(0, 1, Qt::ControlModifier);
    QCOMPARE(params.count(), 1);
    QVERIFY((params.at(0).at(0).value<Params>().prediction.ablate == std::vector<HeadRef>{{0, 1}, {1, 0}}));
    emit plot->cellClicked(1, 0, Qt::ControlModifier);  // on again
    QVERIFY(params.at(1).at(0).value<Params>().prediction.ablate.empty());
    emit plot->cellClicked(0, 1, Qt::NoModifier);  // a plain click selects
    QCOMPARE(select.count(), 1);
    QCOMPARE(params.count(), 2);
    // The model view: Ctrl+click on a thumbnail toggles the same list.
    ModelGridView grid;
    grid.resize(600, 400);
    grid.showResult(r);
    QSignalSpy gridParams(&grid, &TraceView::paramsRequested);
    int layer = -1, head = -1;
    QPoint at;
    for (int y = 0; y < 400 && layer != 0; y += 4)
      for (int x = 0; x < 600; x += 4)
        if (grid.headAt({x, y}, &layer, &head) && layer == 0 && head == 1) {
          at = {x, y};
          break;
        }
    QCOMPARE(layer, 0);
    QTest::mouseClick(&grid, Qt::LeftButton, Qt::ControlModifier, at);
    QCOMPARE(gridParams.count(), 1);
    QVERIFY((gridParams.at(0).at(0).value<Params>().prediction.ablate == std::vector<HeadRef>{{0, 1}, {1, 0}}));
  }

  void wordVocabulariesGetSpaces() {
    QCOMPARE(TokenGenerator::appendedBytes("cat", ""), std::string(" cat"));
    QCOMPARE(TokenGenerator::appendedBytes(".", ""), std::string("."));
    QCOMPARE(TokenGenerator::appendedBytes("Ġcat", "byte-level"), std::string(" cat"));
    QCOMPARE(TokenGenerator::appendedBytes("▁cat", "metaspace"), std::string(" cat"));
    QCOMPARE(TokenGenerator::appendedBytes("<0xC3>", "metaspace"), std::string("\xC3"));  // half a character
  }
};

ATTNLAB_TEST_MAIN(TestPredictionControls)
#include "test_prediction_controls.moc"
