// Issue 31's resample ablation (core/model/intervention.h): a head's output replaced, row by row, by its output in a
// run of another text. Resampling a head from its own text's run changes nothing; from another text's run the head's
// output is that run's (checked against a plain run of the other text) and everything after equals copying it in as a
// patch; a longer text's run gives its first rows (causal); the resumed runs (Model::rowsWith) equal full passes; a
// shorter text or none is refused with a message.
#include <QtTest>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/intervention.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

double maxAbs(const Mat& a, const Mat& b) { return (a - b).cwiseAbs().maxCoeff(); }

}  // namespace

class TestResampleAblation : public QObject {
  Q_OBJECT
 private slots:
  void resampleIsTheOtherTextsOutput_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("gpt2") << "models/gpt2_tiny";
    QTest::newRow("llama") << "decoders/llama-gqa";
  }
  void resampleIsTheOtherTextsOutput() {
    QFETCH(QString, model);
    const auto m = loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/" + model.toStdString());
    const TokenizedText a = m->tokenize(" the cat sat on the mat and the cat");
    TokenizedText b = a;  // the same length, other tokens from position 2 on
    for (std::size_t i = 2; i < b.ids.size(); ++i) b.ids[i] = (b.ids[i] + 37) % m->unembedding()->vocab;
    TokenizedText longer = b;
    longer.ids.push_back(b.ids[3]);
    longer.tokens.push_back(b.tokens[3]);
    const Trace runA = m->forward(a), runB = m->forward(b), runLonger = m->forward(longer);
    const int n = runA.tokenCount(), layer = runA.layerCount() - 1, head = 1;
    Intervention iv;
    iv.ablate = {{layer, head}};
    iv.mode = AblationMode::Resample;
    // Its own text: the same run.
    iv.resample = &runA;
    const Trace own = m->forward(a, {}, iv);
    QVERIFY(maxAbs(own.layers.back().residualOut, runA.layers.back().residualOut) <= 1e-6);
    // Another text: the head's output is that text's, as its own plain run computed it …
    iv.resample = &runB;
    const Trace other = m->forward(a, {}, iv);
    QCOMPARE(Mat(other.layers[layer].headOutput(head)), Mat(runB.layers[layer].headOutput(head)));
    for (int h = 0; h < runA.headCount(); ++h)  // … and the other heads keep their own
      if (h != head) QCOMPARE(Mat(other.layers[layer].headOutput(h)), Mat(runA.layers[layer].headOutput(h)));
    QVERIFY(maxAbs(other.layers.back().residualOut, runA.layers.back().residualOut) > 1e-4);
    // … and the rest of the pass is that output copied in.
    Intervention patch;
    patch.source = &runB;
    patch.patchHeads = {{layer, head}};
    QVERIFY(maxAbs(other.layers.back().residualOut, m->forward(a, {}, patch).layers.back().residualOut) <= 1e-6);
    // A longer text's run: its first n rows, those of the text cut to n tokens.
    iv.resample = &runLonger;
    QVERIFY(maxAbs(m->forward(a, {}, iv).layers.back().residualOut, other.layers.back().residualOut) <= 1e-5);
    // The resumed runs (stacked from the plain one) equal full passes.
    iv.resample = &runB;
    Intervention early = iv;
    early.ablate = {{0, 0}, {layer, head}};
    std::vector<int> rows(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
    const std::vector<Mat> fast = m->rowsWith(a, runA, {iv, early}, rows);
    const std::vector<Mat> slow = m->Model::rowsWith(a, runA, {iv, early}, rows);
    for (std::size_t k = 0; k < fast.size(); ++k) QVERIFY(maxAbs(fast[k], slow[k]) <= 1e-5);
    // A shorter text, or none: refused.
    TokenizedText shorter = b;
    shorter.ids.pop_back();
    shorter.tokens.pop_back();
    const Trace runShort = m->forward(shorter);
    iv.resample = &runShort;
    try {
      m->forward(a, {}, iv);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(
                   QString("the other text has %1 tokens, fewer than this text's %2").arg(n - 1).arg(n)),
               e.what());
    }
    iv.resample = nullptr;
    QVERIFY_THROWS_EXCEPTION(InputError, m->forward(a, {}, iv));
    QVERIFY(parseAblationMode("resample", "--ablate-mode") == AblationMode::Resample);
  }
};

ATTNLAB_TEST_MAIN(TestResampleAblation)
#include "test_resample_ablation.moc"
