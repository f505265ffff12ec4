// Which position the Prediction views look at (prediction_position.h): a pinned token first; else, for BERT with its
// masked-LM head, the first [MASK] (the bars are then the masked-token distribution there), and the last token for
// a next-token model or a sentence without [MASK].
#include <QtTest>

#include "core/predict/prediction.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/views/prediction/prediction_position.h"
#include "ui/views/prediction/prediction_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const std::string kBert = std::string(ATTNLAB_TEST_DATA) + "/fixtures/lm-buddy/bert_tiniest";
const std::string kGpt2 = std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";

ResultPtr compute(const std::string& dir, const std::string& sentence, std::vector<int> pinned = {}) {
  Params p;
  p.modelDir = dir;
  p.sentence = sentence;
  p.selection.pinned = std::move(pinned);
  return LiveController::compute(p, nullptr, {});
}

}  // namespace

class TestPredictionPosition : public QObject {
  Q_OBJECT
 private slots:
  void positionFollowsTheMaskThenThePin_data() {
    QTest::addColumn<QString>("dir");
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<int>("pin");
    QTest::addColumn<int>("expected");
    // [CLS] the [MASK] sat on the [MASK] [SEP]: the first mask.
    QTest::newRow("bert, mask") << QString::fromStdString(kBert) << "the [MASK] sat on the [MASK]" << -1 << 2;
    QTest::newRow("bert, pinned") << QString::fromStdString(kBert) << "the [MASK] sat on the [MASK]" << 4 << 4;
    QTest::newRow("bert, no mask") << QString::fromStdString(kBert) << "the cat sat" << -1 << 4;
    QTest::newRow("gpt2") << QString::fromStdString(kGpt2) << "the [MASK] sat" << -1 << -2;  // -2: the last token
  }
  void positionFollowsTheMaskThenThePin() {
    QFETCH(QString, dir);
    QFETCH(QString, sentence);
    QFETCH(int, pin);
    QFETCH(int, expected);
    const ResultPtr r =
        compute(dir.toStdString(), sentence.toStdString(), pin >= 0 ? std::vector<int>{pin} : std::vector<int>{});
    QVERIFY2(r->ok(), qPrintable(r->error));
    QCOMPARE(predictionPosition(*r), expected == -2 ? r->trace().tokenCount() - 1 : expected);
  }

  void bertBarsAreTheMaskedTokenDistribution() {
    const ResultPtr r = compute(kBert, "the [MASK] sat on the mat");
    QVERIFY2(r->ok(), qPrintable(r->error));
    PredictionView view;
    view.showResult(r);
    view.waitForAnalyses();
    const ViewNumbers n = view.numbers(*r);
    const LabelledMatrix* top = nullptr;
    for (const LabelledMatrix& m : n.matrices)
      if (m.name == "prediction") top = &m;
    QVERIFY(top);
    const std::vector<TokenScore> expected = predict(*r->run->model, r->trace(), 2, PredictionView::kTop);
    QCOMPARE(top->values.rows(), Eigen::Index(expected.size()));
    QCOMPARE(top->rowLabels[0], std::string("##sea"));  // make_mlm_reference.py's most probable token at the mask
    for (std::size_t i = 0; i < expected.size(); ++i) QCOMPARE(top->rowLabels[i], expected[i].token);
  }
};

ATTNLAB_TEST_MAIN(TestPredictionPosition)
#include "test_prediction_position.moc"
