// BERT's masked-token prediction through its MLM head (cls.predictions) against the independent float64 PyTorch
// computation of tests/reference/make_mlm_reference.py on the real checkpoint fixtures/lm-buddy/bert_tiniest:
// [MASK] stays one token, the default position is the first [MASK], logits and probabilities there ≤ 1e-5, the
// top tokens, head (0, 0) zero-ablated, the logit lens through the same head; a DistilBERT whose head has its own
// (untied) projector; patching's logit difference goes
// through the whole head; direct logit attribution is refused (not linear through dense + GELU); a BERT without
// the head keeps no unembedding.
#include <QtTest>

#include <memory>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/predict/attribution.h"
#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

// The fixture's d = 4 keeps float32 rounding near 1e-7; the ablation moves the logits by ~3e-4, so the
// tolerance must be well below that to tell the ablated run from the plain one.
constexpr double kTolerance = 1e-5;

nlohmann::json reference() { return readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/mlm_reference.json"); }

std::shared_ptr<const HfModel> bert() {
  return loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/" + reference()["model"].get<std::string>());
}

/// Largest absolute error of got(ids[i]) against expected[i].
double worstAt(const Vec& got, const nlohmann::json& ids, const nlohmann::json& expected) {
  double w = 0.0;
  for (size_t i = 0; i < ids.size(); ++i) w = std::max(w, std::abs(got(ids[i].get<int>()) - expected[i].get<double>()));
  return w;
}

std::string message(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestPredictMlm : public QObject {
  Q_OBJECT

 private slots:
  void maskStaysOneTokenAndIsTheDefaultPosition() {
    const auto model = bert();
    QVERIFY(model->unembedding());
    QVERIFY(model->unembedding()->hasTransform());
    QVERIFY(predictsMaskedToken(*model));
    QCOMPARE(model->maskTokenId(), 103);
    for (const auto& c : reference()["cases"]) {
      const TokenizedText text = model->tokenize(c["text"].get<std::string>());
      QCOMPARE(text.ids, c["token_ids"].get<std::vector<int>>());
      QCOMPARE(defaultPosition(*model, model->forward(text)), c["mask"].get<int>());
    }
    const Trace none = model->forward(model->tokenize("the cat sat"));
    QCOMPARE(defaultPosition(*model, none), none.tokenCount() - 1);  // no [MASK]: the last token
  }

  void logitsAtTheMaskMatchReference() {
    const auto model = bert();
    for (const auto& c : reference()["cases"]) {
      const Trace t = model->forward(model->tokenize(c["text"].get<std::string>()));
      const int mask = c["mask"].get<int>();
      const Vec logits = rowLogits(*model->unembedding(), t.layers.back().residualOut.row(mask).transpose());
      QCOMPARE(logits.size(), Eigen::Index(30522));
      QVERIFY2(worstAt(logits, c["ids"], c["logits"]) <= kTolerance, c["text"].get<std::string>().c_str());
      const VecD p = softmaxAt(logits);
      for (size_t i = 0; i < c["ids"].size(); ++i) {
        const double expected = c["probs"][i].get<double>();
        QVERIFY(std::abs(p(c["ids"][i].get<int>()) - expected) <= 1e-4 * expected);
      }
      const std::vector<TokenScore> top = predict(*model, t, mask, 5);
      for (size_t i = 0; i < top.size(); ++i) QCOMPARE(top[i].id, c["top"][i].get<int>());
      QCOMPARE(top[0].token, model->vocabularyPiece(c["top"][0].get<int>()));
      const std::vector<LensRow> lens = logitLens(*model, t, mask, 5);
      QCOMPARE(lens.front().layer, -1);
      for (size_t i = 0; i < 5; ++i) QCOMPARE(lens.front().top[i].id, c["lens_top"][i].get<int>());
      QCOMPARE(lens.back().top[0].id, top[0].id);
    }
  }

  void distilBertsUntiedHeadMatchesReference() {
    const nlohmann::json c = reference()["distilbert"];
    const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/" + c["model"].get<std::string>());
    QVERIFY(model->unembedding() && model->unembedding()->hasTransform());
    const TokenizedText text = model->tokenize(c["text"].get<std::string>());
    QCOMPARE(text.ids, c["token_ids"].get<std::vector<int>>());
    const Trace t = model->forward(text);
    const int mask = defaultPosition(*model, t);
    QCOMPARE(mask, c["mask"].get<int>());
    const Vec logits = rowLogits(*model->unembedding(), t.layers.back().residualOut.row(mask).transpose());
    QCOMPARE(logits.size(), Eigen::Index(c["logits"].size()));
    double worst = 0.0;
    for (Eigen::Index i = 0; i < logits.size(); ++i)
      worst = std::max(worst, std::abs(logits(i) - c["logits"][size_t(i)].get<double>()));
    QVERIFY2(worst <= 1e-4, qPrintable(QString::number(worst)));  // d = 32, logits up to ~8: float rounding
    const std::vector<TokenScore> top = predict(*model, t, mask, 5);
    for (size_t i = 0; i < top.size(); ++i) QCOMPARE(top[i].id, c["top"][i].get<int>());
  }

  void ablationGoesThroughTheHead() {
    const auto model = bert();
    for (const auto& c : reference()["cases"]) {
      const TokenizedText text = model->tokenize(c["text"].get<std::string>());
      const Trace clean = model->forward(text);
      Intervention iv;
      iv.ablate = {{0, 0}};
      const AblationEffect e = ablationEffect(*model, text, clean, iv, c["mask"].get<int>());
      QCOMPARE(e.position, c["mask"].get<int>());
      QVERIFY(worstAt(e.ablatedLogits, c["ids"], c["ablated_zero"]) <= kTolerance);
      QVERIFY(e.kl > 0.0);
    }
  }

  void patchingDifferenceGoesThroughTheHead() {
    const auto model = bert();
    const TokenizedText clean = model->tokenize("the cat sat on the [MASK]");
    const TokenizedText corrupt = model->tokenize("the dog sat on the [MASK]");
    const PatchingResult r = activationPatching(*model, clean, corrupt, 2003, 1996);
    const Trace t = model->forward(clean);
    const Vec logits =
        rowLogits(*model->unembedding(), t.layers.back().residualOut.row(t.tokenCount() - 1).transpose());
    QVERIFY(std::abs(r.cleanDiff - (logits(2003) - logits(1996))) <= 1e-6);
    QVERIFY(std::abs(r.resid(r.resid.rows() - 1, t.tokenCount() - 1) - 1.0) <= 1e-3);
  }

  void attributionIsRefused() {
    const auto model = bert();
    const TokenizedText text = model->tokenize("the [MASK] sat");
    const Trace t = model->forward(text);
    const std::string why = message([&] { headContributions(*model, text, t, 2); });
    QVERIFY2(why.find("not linear") != std::string::npos && why.find("GELU") != std::string::npos, why.c_str());
    QVERIFY(message([&] { readOutputProjections(*model, text); }).find("masked-LM head") != std::string::npos);
  }

  void bertWithoutTheHeadHasNoUnembedding() {
    const auto model = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/models/bert_tiny");
    QVERIFY(!model->unembedding());
    QVERIFY(!predictsMaskedToken(*model));
    const Trace t = model->forward(model->tokenize("the [MASK] sat"));
    QCOMPARE(defaultPosition(*model, t), t.tokenCount() - 1);
    QVERIFY(message([&] { predict(*model, t, -1, 3); }).find("masked-LM head") != std::string::npos);
  }
};

ATTNLAB_TEST_MAIN(TestPredictMlm)
#include "test_predict_mlm.moc"
