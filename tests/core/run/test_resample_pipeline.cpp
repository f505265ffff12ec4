// Resample ablation through the pipeline the window runs (core/run/pipeline.h): the resample text is run through the
// same model, its run is owned by the result (the Intervention's raw pointer points into it, also in a copy), and the
// ablated run equals what `attnlab predict --ablate-mode resample --resample-text` computes (ablationEffect with the
// other text's run). Resampling from the sentence itself changes nothing; an unchanged resample text keeps its run,
// an edited one is run again (and the result equals a run without a previous one); an empty or shorter resample text
// is refused with a message naming both lengths.
#include <QtTest>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/predict/patching.h"
#include "core/run/pipeline.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string dataDir(const std::string& rel) { return std::string(ATTNLAB_TEST_DATA) + "/reference/" + rel; }

double maxAbs(const Mat& a, const Mat& b) { return (a - b).cwiseAbs().maxCoeff(); }
double maxAbs(const Vec& a, const Vec& b) { return (a - b).cwiseAbs().maxCoeff(); }

/// The logits at the last position of a pipeline result.
Vec lastLogits(const PipelineResult& r) {
  const Mat& f = r.trace.layers.back().residualOut;
  return rowLogits(*r.model->unembedding(), f.row(f.rows() - 1).transpose());
}

Params resampleParams(const std::string& model, const std::string& other) {
  Params p;
  p.modelDir = dataDir(model);
  p.sentence = " the cat sat on the mat and the cat";
  p.prediction.ablate = {{0, 1}, {1, 0}};
  p.prediction.ablationMode = AblationMode::Resample;
  p.prediction.resampleText = other;
  return p;
}

}  // namespace

class TestResamplePipeline : public QObject {
  Q_OBJECT
 private slots:
  void resampleEqualsTheCommandLine_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("gpt2") << "models/gpt2_tiny";
    QTest::newRow("llama") << "decoders/llama-gqa";
  }
  void resampleEqualsTheCommandLine() {
    QFETCH(QString, model);
    Params p = resampleParams(model.toStdString(), " a dog ran to the red ball and a dog barked twice");
    const std::shared_ptr<const Model> m = loadCheckpoint(p.modelDir);
    const PipelineResult r = runPipeline(p, m);
    QVERIFY(r.resampleRun);
    QVERIFY(r.intervention.resample == r.resampleRun.get());
    QVERIFY(r.resampleRun->tokenCount() > r.trace.tokenCount());  // a longer text: its first rows stand in
    // What the command line does: the plain run, then ablationEffect with the other text's run.
    Params plainParams = p;
    plainParams.prediction.ablate.clear();
    const PipelineResult plain = runPipeline(plainParams, m);
    Intervention iv;
    iv.ablate = p.prediction.ablate;
    iv.mode = AblationMode::Resample;
    const Trace other = m->forward(m->tokenize(p.prediction.resampleText));
    iv.resample = &other;
    const AblationEffect cli = ablationEffect(*m, plain.text, plain.trace, iv);
    QVERIFY2(maxAbs(lastLogits(r), cli.ablatedLogits) <= 1e-6,
             qPrintable(QString::number(maxAbs(lastLogits(r), cli.ablatedLogits))));
    QVERIFY(maxAbs(r.trace.layers.back().residualOut, cli.ablated.layers.back().residualOut) <= 1e-6);
    // The ablation did something: the heads' outputs are the other text's, and the logits moved.
    QCOMPARE(Mat(r.trace.layers[1].headOutput(0)), Mat(other.layers[1].headOutput(0).topRows(r.trace.tokenCount())));
    QVERIFY(maxAbs(lastLogits(r), lastLogits(plain)) > 1e-3);
    // A copy of the result (the window shares and copies them) still points into the run it owns.
    const PipelineResult copy = r;
    QVERIFY(copy.intervention.resample == copy.resampleRun.get());
    // Resampling from the sentence itself: the plain run.
    p.prediction.resampleText = p.sentence;
    const PipelineResult self = runPipeline(p, m);
    QVERIFY(maxAbs(lastLogits(self), lastLogits(plain)) <= 1e-6);
    QVERIFY(maxAbs(self.trace.layers.back().residualOut, plain.trace.layers.back().residualOut) <= 1e-6);
  }

  void editedResampleTextIsRunAgain() {
    Params p = resampleParams("models/gpt2_tiny", " a dog ran to the red ball and a dog barked");
    const std::shared_ptr<const Model> m = loadCheckpoint(p.modelDir);
    const auto first = std::make_shared<const PipelineResult>(runPipeline(p, m));
    // Unchanged resample text (a selection edit, a head added): its run is kept.
    p.prediction.ablate.push_back({1, 1});
    const auto second = std::make_shared<const PipelineResult>(runPipeline(p, m, {}, first));
    QVERIFY(second->resampleRun == first->resampleRun);
    const PipelineResult fresh2 = runPipeline(p, m);
    QVERIFY(maxAbs(second->trace.layers.back().residualOut, fresh2.trace.layers.back().residualOut) <= 1e-6);
    // An edited one: run again, and the layers the old text's outputs reached are recomputed.
    p.prediction.resampleText = " one two three four five six seven eight nine ten eleven";
    const PipelineResult third = runPipeline(p, m, {}, second);
    QVERIFY(third.resampleRun != second->resampleRun);
    QCOMPARE(third.resampleRun->tokens.size(), m->tokenize(p.prediction.resampleText).tokens.size());
    const PipelineResult fresh3 = runPipeline(p, m);
    QVERIFY(maxAbs(third.trace.layers.back().residualOut, fresh3.trace.layers.back().residualOut) <= 1e-6);
    QVERIFY(maxAbs(third.trace.layers.back().residualOut, second->trace.layers.back().residualOut) > 1e-4);
    // Zero mode after resample: no resample run, and not the resample run's numbers.
    p.prediction.ablationMode = AblationMode::Zero;
    const PipelineResult zero = runPipeline(p, m, {}, std::make_shared<const PipelineResult>(third));
    QVERIFY(!zero.resampleRun);
    QVERIFY(zero.intervention.resample == nullptr);
    QVERIFY(maxAbs(zero.trace.layers.back().residualOut, runPipeline(p, m).trace.layers.back().residualOut) <= 1e-6);
  }

  void badResampleTextsAreRefused() {
    Params p = resampleParams("models/gpt2_tiny", "");
    const std::shared_ptr<const Model> m = loadCheckpoint(p.modelDir);
    const int n = static_cast<int>(m->tokenize(p.sentence).tokens.size());
    try {
      runPipeline(p, m);
      QFAIL("an empty resample text ran");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("needs a resample text") && QString(e.what()).contains("empty"), e.what());
    }
    p.prediction.resampleText = " a dog ran";
    const int k = static_cast<int>(m->tokenize(p.prediction.resampleText).tokens.size());
    QVERIFY(k < n);
    try {
      runPipeline(p, m);
      QFAIL("a shorter resample text ran");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(
                   QString("the resample text has %1 tokens, fewer than the sentence's %2").arg(k).arg(n)),
               e.what());
    }
    // Resample mode without ablated heads needs no text.
    p.prediction.ablate.clear();
    p.prediction.resampleText.clear();
    const PipelineResult none = runPipeline(p, m);
    QVERIFY(!none.resampleRun);
    QCOMPARE(none.trace.tokenCount(), n);
  }

  void resampleTextIsCutAsTheSentenceIs() {
    // keep_last_tokens cuts the sentence to its last tokens; the resample text is cut the same way, so resampling
    // from the same long text is still the plain run.
    Params p = resampleParams("models/gpt2_tiny", "");
    std::string words;
    for (int i = 0; i < 70; ++i) words += " w" + std::to_string(i % 13);
    p.sentence = words;
    p.prediction.resampleText = words;
    p.keepLastTokens = 40;
    const std::shared_ptr<const Model> m = loadCheckpoint(p.modelDir);
    const PipelineResult r = runPipeline(p, m);
    QCOMPARE(r.trace.tokenCount(), 40);
    QCOMPARE(r.resampleRun->tokenCount(), 40);
    Params plain = p;
    plain.prediction.ablate.clear();
    QVERIFY(maxAbs(lastLogits(r), lastLogits(runPipeline(plain, m))) <= 1e-6);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestResamplePipeline)
#include "test_resample_pipeline.moc"
