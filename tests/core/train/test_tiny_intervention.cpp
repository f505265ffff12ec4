// Ablation, patching and attribution on the trained tiny models (the shipped induction model): the same
// interventions as GPT-2 and the decoders (core/model/intervention.h), applied through tinyForward's hooks.
// Checked by what they must do: a zeroed layer's attention adds nothing to the stream (the tiny attention
// has no bias) while its maps stay; mean ablation gives each row the plain run's mean; a patched final row
// is the source's; the direct logit attribution adds up to the logit.
#include <QtTest>

#include "core/base/errors.h"
#include "core/predict/attribution.h"
#include "core/predict/prediction.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

const char* kSentence = "the cat sat on the mat . the cat sat on the mat";

float maxAbs(const Mat& m) { return m.size() ? m.cwiseAbs().maxCoeff() : 0.f; }

}  // namespace

class TestTinyIntervention : public QObject {
  Q_OBJECT
 private slots:
  void zeroAblationSilencesTheHeads() {
    const auto model = loadShippedModel(kShippedInductionModel);
    const TokenizedText text = model->tokenize(kSentence);
    const Trace plain = model->forward(text);
    Intervention iv;
    for (int h = 0; h < plain.headCount(); ++h) iv.ablate.push_back({0, h});
    const Trace t = model->forward(text, {}, iv);
    QCOMPARE(maxAbs(t.layers[0].attentionOut), 0.f);  // concat · W_O with every head zeroed
    QVERIFY(t.layers[0].heads[1].attention == plain.layers[0].heads[1].attention);  // the heads still attend
    QVERIFY(maxAbs(t.layerInput(1) - plain.layerInput(1)) > 1e-3f);                 // and the stream changed
    // One head alone: its output is zero, the others' are the plain run's.
    iv.ablate = {{1, 2}};
    const Trace one = model->forward(text, {}, iv);
    QCOMPARE(maxAbs(one.layers[1].headOutput(2)), 0.f);
    QVERIFY(one.layers[1].headOutput(0) == plain.layers[1].headOutput(0));
    QVERIFY(one.layers[0].residualOut == plain.layers[0].residualOut);
  }

  void meanAblationUsesThePlainMean() {
    const auto model = loadShippedModel(kShippedInductionModel);
    const TokenizedText text = model->tokenize(kSentence);
    const Trace plain = model->forward(text);
    Intervention iv;
    iv.ablate = {{0, 1}};
    iv.mode = AblationMode::Mean;
    const Trace t = model->forward(text, {}, iv);
    const Mat out = t.layers[0].headOutput(1);
    const Eigen::RowVectorXf mean = plain.layers[0].headOutput(1).colwise().mean();
    for (Eigen::Index r = 0; r < out.rows(); ++r) QVERIFY((out.row(r) - mean).cwiseAbs().maxCoeff() < 1e-5f);
  }

  void finalStreamPatchCopiesTheSource() {
    const auto model = loadShippedModel(kShippedInductionModel);
    const TokenizedText clean = model->tokenize(kSentence);
    const TokenizedText corrupt = model->tokenize("the dog sat on the mat . the cat sat on the mat");
    QCOMPARE(corrupt.ids.size(), clean.ids.size());
    QVERIFY(corrupt.ids[2] != clean.ids[2]);  // [BOS] the cat|dog …
    const Trace source = model->forward(clean);
    Intervention iv;
    iv.source = &source;
    iv.residualLayer = source.layerCount();
    iv.residualPosition = 3;
    const Trace t = model->forward(corrupt, {}, iv);
    QVERIFY(t.layers.back().residualOut.row(3) == source.layers.back().residualOut.row(3));
    QVERIFY(t.layers.back().residualOut.row(2) != source.layers.back().residualOut.row(2));
  }

  void attributionAddsUpToTheLogit() {
    const auto model = loadShippedModel(kShippedInductionModel);
    const TokenizedText text = model->tokenize(kSentence);
    const Trace t = model->forward(text);
    const int last = t.tokenCount() - 1;
    const int target = predict(*model, t, last, 1).front().id;
    const Attribution a = directLogitAttribution(*model, t, headContributions(*model, text, t, last), target);
    QVERIFY2(std::abs(a.total() - a.logit) < 1e-3 * std::max(1.0, std::abs(a.logit)),
             qPrintable(QString("%1 vs %2").arg(a.total()).arg(a.logit)));
  }

  void missingHeadIsAMessage() {
    const auto model = loadShippedModel(kShippedInductionModel);
    Intervention iv;
    iv.ablate = {{2, 0}};
    try {
      model->forward(model->tokenize(kSentence), {}, iv);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("does not exist") != std::string::npos, e.what());
    }
  }
};

ATTNLAB_TEST_MAIN(TestTinyIntervention)
#include "test_tiny_intervention.moc"
