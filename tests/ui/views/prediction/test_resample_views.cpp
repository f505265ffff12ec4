// Resample ablation in the window's views (issue 31) on a real checkpoint (tests/reference/models/gpt2_tiny): the
// Prediction view's ablation line and its KL comparison are core ablationEffect's with the resample text's run (what
// `attnlab predict --ablate-mode resample --resample-text` computes); resampling from the sentence itself changes
// nothing; the line's "resample" link and the resample field emit the edited parameters; a refused run shows its
// reason beside the field; Generate stops where the resample text ends; the Activation patching view patches on top of
// the resample ablation (core activationPatching with the resample run) and refuses a resample text shorter than its
// texts.
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStringDecoder>
#include <QtTest>

#include "core/model/generate.h"
#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "core/run/model_factory.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/views/prediction/patching_controls.h"
#include "ui/views/prediction/patching_view.h"
#include "ui/views/prediction/prediction_view.h"
#include "ui/views/prediction/resample_field.h"
#include "ui/views/prediction/token_generator.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

constexpr char kSentence[] = "the cat sat on the mat and the cat";
constexpr char kOther[] = "a dog ran to the red ball and a dog barked twice";

Params resampleParams(const std::string& other) {
  Params p;
  p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";
  p.sentence = kSentence;
  p.prediction.ablate = {{0, 1}, {1, 2}};
  p.prediction.ablationMode = AblationMode::Resample;
  p.prediction.resampleText = other;
  return p;
}

const LabelledMatrix* matrix(const ViewNumbers& n, const std::string& name) {
  for (const LabelledMatrix& m : n.matrices)
    if (m.name == name) return &m;
  return nullptr;
}

QLabel* ablationLine(QWidget& view) {
  for (QLabel* l : view.findChildren<QLabel*>())
    if (l->text().startsWith("<b>Ablated</b>")) return l;
  return nullptr;
}

QLabel* statusLine(QWidget& view, const QString& start) {
  for (QLabel* l : view.findChildren<QLabel*>())
    if (l->text().startsWith(start)) return l;
  return nullptr;
}

}  // namespace

class TestResampleViews : public QObject {
  Q_OBJECT
 private slots:
  void ablationLineIsTheCommandLines() {
    const ResultPtr r = LiveController::compute(resampleParams(kOther), nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    PredictionView view;
    view.showResult(r);
    view.waitForAnalyses();
    const ViewNumbers n = view.numbers(*r);
    const LabelledMatrix* a = matrix(n, "ablation");
    QVERIFY(a);
    // `attnlab predict --ablate 0.1,1.2 --ablate-mode resample --resample-text …`: the plain run, the other text's
    // run, ablationEffect.
    const Model& m = *r->run->model;
    const Trace plain = m.forward(r->run->text);
    const Trace other = m.forward(m.tokenize(kOther));
    Intervention iv;
    iv.ablate = r->params.prediction.ablate;
    iv.mode = AblationMode::Resample;
    iv.resample = &other;
    const AblationEffect e = ablationEffect(m, r->run->text, plain, iv);
    QCOMPARE(int(a->values(0, 0)), e.target);
    QVERIFY(std::abs(a->values(0, 1) - e.cleanProb) < 1e-9);
    QVERIFY(std::abs(a->values(0, 2) - e.ablatedProb) < 1e-6);
    QVERIFY(std::abs(a->values(0, 3) - e.kl) < 1e-6);
    QVERIFY(e.kl > 1e-6);  // the heads' outputs on the other text do move the prediction
    // The bars are the ablated run's: its top token's probability.
    const auto top = predict(m, e.ablated, r->trace().tokenCount() - 1, 1);
    QVERIFY(std::abs(matrix(n, "prediction")->values(0, 1) - top.front().prob) < 1e-5);
    // The line names the text and offers the two other modes; the field shows the text.
    QLabel* line = ablationLine(view);
    QVERIFY(line);
    QVERIFY2(line->text().contains("output replaced by its output on “a dog ran to the red ball and a dog bar…”"),
             qPrintable(line->text()));
    QVERIFY(line->text().contains("href='zero'") && line->text().contains("href='mean'"));
    QVERIFY(!line->text().contains("href='resample'"));
    QVERIFY(view.resampleField()->isVisibleTo(&view));
    QCOMPARE(view.resampleField()->text(), QString(kOther));
    QVERIFY(view.resampleProblem().isEmpty());
    // Resampling from the sentence itself: the plain model's numbers; also from the sentence with more after it (a
    // causal model's first rows are the sentence's), whose "%2" stays as typed in the line.
    for (const std::string& same : {std::string(kSentence), std::string(kSentence) + " %2 %3"}) {
      const ResultPtr self = LiveController::compute(resampleParams(same), r->run->model, {});
      view.showResult(self);
      view.waitForAnalyses();
      const ViewNumbers numbers = view.numbers(*self);
      const LabelledMatrix* s = matrix(numbers, "ablation");
      QVERIFY(s);
      QVERIFY(std::abs(s->values(0, 2) - s->values(0, 1)) < 1e-6);
      QVERIFY(std::abs(s->values(0, 3)) < 1e-6);
      QVERIFY2(ablationLine(view)->text().contains(QString("on “%1”").arg(QString::fromStdString(same))),
               qPrintable(ablationLine(view)->text()));
    }
  }

  void linkAndFieldEditTheParameters() {
    Params p = resampleParams("");
    p.prediction.ablationMode = AblationMode::Zero;
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    PredictionView view;
    view.showResult(r);
    view.waitForAnalyses();
    QVERIFY(!view.resampleField()->isVisibleTo(&view));  // zero mode: no field
    QLabel* line = ablationLine(view);
    QVERIFY(line && line->text().contains("href='resample'"));
    QSignalSpy spy(&view, &TraceView::paramsRequested);
    emit line->linkActivated("resample");
    QCOMPARE(spy.count(), 1);
    QVERIFY(spy.at(0).at(0).value<Params>().prediction.ablationMode == AblationMode::Resample);
    QVERIFY(view.resampleField()->isVisibleTo(&view));  // at once: the text is typed here
    // Typing re-runs like any parameter edit: one edit per key, the text so far, the rest unchanged.
    QTest::keyClicks(view.resampleField()->edit(), "a b");
    QCOMPARE(spy.count(), 4);
    const Params typed = spy.last().at(0).value<Params>();
    QCOMPARE(typed.prediction.resampleText, std::string("a b"));
    QVERIFY(typed.prediction.ablationMode == AblationMode::Resample);
    QVERIFY(typed.prediction.ablate == p.prediction.ablate);
    QCOMPARE(typed.sentence, p.sentence);
  }

  void refusedRunsSayWhyBesideTheField() {
    const std::shared_ptr<const Model> model = makeModel(resampleParams(""));
    Params zero = resampleParams("");
    zero.prediction.ablationMode = AblationMode::Zero;
    PredictionView view;
    view.showResult(LiveController::compute(zero, model, {}));
    view.waitForAnalyses();
    // An empty resample text: the run fails (no silent zero ablation), and the field says so.
    const ResultPtr empty = LiveController::compute(resampleParams(""), model, {});
    QVERIFY(!empty->ok());
    view.showFailure(empty);
    QVERIFY(view.resampleField()->isVisibleTo(&view));
    QVERIFY2(view.resampleProblem().contains("needs a resample text") && view.resampleProblem().contains("empty"),
             qPrintable(view.resampleProblem()));
    // A shorter one: both lengths.
    const int n = static_cast<int>(model->tokenize(kSentence).tokens.size());
    const int k = static_cast<int>(model->tokenize("a dog ran").tokens.size());
    const ResultPtr shorter = LiveController::compute(resampleParams("a dog ran"), model, {});
    QVERIFY(!shorter->ok());
    view.showFailure(shorter);
    QVERIFY2(view.resampleProblem().contains(
                 QString("the resample text has %1 tokens, fewer than the sentence's %2").arg(k).arg(n)),
             qPrintable(view.resampleProblem()));
    QCOMPARE(view.resampleField()->text(), QString("a dog ran"));
    // A failure of a run without resample ablation is not the field's; a run that works clears the reason.
    Params other = zero;
    other.prediction.ablate = {{7, 0}};
    const ResultPtr noHead = LiveController::compute(other, model, {});
    QVERIFY(!noHead->ok());
    view.showFailure(noHead);
    QVERIFY(view.resampleProblem().contains("fewer than"));
    view.showResult(LiveController::compute(resampleParams(kOther), model, {}));
    QVERIFY(view.resampleProblem().isEmpty());
    QVERIFY(view.resampleField()->isVisibleTo(&view));
  }

  void generateStopsWhereTheResampleTextEnds() {
    // The resample text is a few tokens longer than the sentence: Generate 5 makes that many, the ablated model's
    // greedy ones.
    const std::shared_ptr<const Model> model = makeModel(resampleParams(""));
    const std::vector<int> sentence = model->tokenize(kSentence).ids;
    const std::string other = std::string(kSentence) + " sat on";
    const int length = static_cast<int>(model->tokenize(other).ids.size());
    const int room = length - static_cast<int>(sentence.size());
    QVERIFY(room >= 1 && room < 5);
    const ResultPtr r = LiveController::compute(resampleParams(other), model, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    PredictionView view;
    view.showResult(r);
    view.waitForAnalyses();
    QSignalSpy spy(&view, &TraceView::paramsRequested);
    view.generate(5);
    QLabel* starting = statusLine(view, "Generating ");
    QVERIFY(starting);
    QVERIFY2(starting->text().startsWith(QString("Generating %1 token(s) with the ablated model").arg(room)) &&
                 starting->text().contains(
                     QString("%1 of the 5 tokens asked: the resample text has %2 tokens").arg(room).arg(length)),
             qPrintable(starting->text()));
    QTRY_VERIFY_WITH_TIMEOUT(!view.generating(), 20000);
    // The ablated model's greedy tokens: core generate() with the resample ablation.
    const Trace otherRun = model->forward(model->tokenize(other));
    Intervention iv;
    iv.ablate = r->params.prediction.ablate;
    iv.mode = AblationMode::Resample;
    iv.resample = &otherRun;
    const auto expected = generate(*model, sentence, room, SamplingOptions{}, {}, {}, iv);
    // One edit per step while the sentence, read again, stays within the resample text; then a message. The text of
    // each step is the sentence and the pieces' bytes so far, read as UTF-8 (a character split over two pieces waits).
    std::string text = kSentence;
    QStringDecoder utf8(QStringDecoder::Utf8);
    QString appended;
    int made = 0;
    for (const GeneratedToken& t : expected) {
      appended += utf8(QByteArray::fromStdString(TokenGenerator::appendedBytes(t.piece, "byte-level")));
      const std::string grown = kSentence + appended.toStdString();
      const int tokens = static_cast<int>(model->tokenize(grown).tokens.size());
      if (tokens > length) {
        QLabel* stopped = statusLine(view, "Stopped before step");
        QVERIFY(stopped);
        QVERIFY2(stopped->text().startsWith(QString("Stopped before step %1: the sentence would have %2 tokens, more "
                                                    "than the resample text's %3")
                                                .arg(made + 1)
                                                .arg(tokens)
                                                .arg(length)),
                 qPrintable(stopped->text()));
        break;
      }
      text = grown;
      QVERIFY(made < spy.count());
      QCOMPARE(QString::fromStdString(spy.at(made).at(0).value<Params>().sentence), QString::fromStdString(text));
      ++made;
    }
    QCOMPARE(spy.count(), made);
    if (made == room) {
      QLabel* step = statusLine(view, "Step ");
      QVERIFY(step);
      QVERIFY2(step->text().contains(
                   QString("%1 of the 5 tokens asked: the resample text has %2 tokens").arg(room).arg(length)),
               qPrintable(step->text()));
    }
    // The last sentence asked for still runs (it is no longer than the resample text) …
    if (made > 0) {
      const ResultPtr grown = LiveController::compute(spy.last().at(0).value<Params>(), model, {});
      QVERIFY2(grown->ok(), qPrintable(grown->error));
    }
    // … and from a sentence as long as the resample text nothing is generated: a message, no edit.
    Params full = resampleParams(other);
    full.sentence = other;
    view.showResult(LiveController::compute(full, model, {}));
    view.waitForAnalyses();
    spy.clear();
    view.generate(3);
    QVERIFY(!view.generating());
    QCOMPARE(spy.count(), 0);
    QVERIFY(statusLine(view, "Not generated: the resample text has"));
  }

  void generationLineFollowsTheModelsIdentity() {
    // Issue 31: the step line goes with another model, judged by what the model is made from (not its address: a
    // freed model's address can be the next one's); the same checkpoint loaded again keeps it.
    Params p = resampleParams(kOther);
    p.prediction.ablate.clear();
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    PredictionView view;
    view.showResult(r);
    view.waitForAnalyses();
    QSignalSpy spy(&view, &TraceView::paramsRequested);
    view.generate(1);
    QTRY_VERIFY_WITH_TIMEOUT(!view.generating(), 20000);
    QVERIFY(statusLine(view, "Step 1: "));
    const ResultPtr reloaded = LiveController::compute(spy.last().at(0).value<Params>(), makeModel(p), {});
    QVERIFY(reloaded->run->model != r->run->model);
    view.showResult(reloaded);
    QVERIFY(statusLine(view, "Step 1: "));
    Params builtin = spy.last().at(0).value<Params>();
    builtin.modelDir.clear();
    view.showResult(LiveController::compute(builtin, nullptr, {}));
    QVERIFY(!statusLine(view, "Step 1: "));
  }

  void patchingCarriesTheResampleAblation() {
    // The clean and corrupted texts of test_patching_view (9 tokens of gpt2_tiny's vocabulary each).
    Params p = resampleParams("the street walked on the cat and the roses walked");
    p.sentence = "the cat walked on the street";
    p.prediction.clean = "the cat walked on the street and the cat";
    p.prediction.corrupt = "the roses walked on the street and the roses";
    p.prediction.patchTarget = " cat";
    p.prediction.patchVersus = "Ġthe";
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    PatchingView view;
    view.showResult(r);
    view.waitForAnalyses();
    QVERIFY2(!view.controls()->statusIsError(), qPrintable(view.controls()->status()));
    const Model& m = *r->run->model;
    const Trace other = m.forward(m.tokenize(p.prediction.resampleText));
    PatchingOptions o;
    o.ablation.ablate = p.prediction.ablate;
    o.ablation.mode = AblationMode::Resample;
    o.ablation.resample = &other;
    const auto expected = activationPatching(m, m.tokenize(p.prediction.clean), m.tokenize(p.prediction.corrupt),
                                             resolveToken(m, " cat"), resolveToken(m, "Ġthe"), {}, o);
    const ViewNumbers numbers = view.numbers(*r);
    const LabelledMatrix* heads = matrix(numbers, "patching_heads");
    QVERIFY(heads && heads->values.isApprox(expected.heads, 1e-9));
    QVERIFY2(view.summary().contains("heads 0.1, 1.2 (resampled from “the street walked on the cat and the ro…”)"),
             qPrintable(view.summary()));
    // Zero ablation gives another map: the resample run was used.
    PatchingOptions zero = o;
    zero.ablation.mode = AblationMode::Zero;
    zero.ablation.resample = nullptr;
    const auto zeroMap = activationPatching(m, m.tokenize(p.prediction.clean), m.tokenize(p.prediction.corrupt),
                                            resolveToken(m, " cat"), resolveToken(m, "Ġthe"), {}, zero);
    QVERIFY(!heads->values.isApprox(zeroMap.heads, 1e-3));
    QCOMPARE(view.runsStarted(), 1);
    // An edited resample text recomputes; one shorter than the patching texts (but not than the sentence) is refused.
    p.prediction.resampleText = "the cat walked on the street and";
    const ResultPtr shorter = LiveController::compute(p, r->run->model, {});
    QVERIFY2(shorter->ok(), qPrintable(shorter->error));
    view.showResult(shorter);
    view.waitForAnalyses();
    QVERIFY(view.controls()->statusIsError());
    QVERIFY2(view.controls()->status().contains("fewer than the clean and corrupted texts' 9"),
             qPrintable(view.controls()->status()));
    QCOMPARE(view.runsStarted(), 1);
  }
};

ATTNLAB_TEST_MAIN(TestResampleViews)
#include "test_resample_views.moc"
