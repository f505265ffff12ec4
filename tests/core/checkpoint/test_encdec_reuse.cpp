// An encoder–decoder pass that takes the encoder and the decoder's first rows from an earlier run (EncDecReuse) equals
// a fresh pass of the same texts to ≤ 1e-6 — every map of both stacks and of cross-attention, every block output,
// the stacks' outputs and the logits — on the tiny Marian (tied, separate vocabularies), BART and T5 (v1.0, v1.1)
// checkpoints of tests/reference/encdec, whose texts are the references' own: the earlier run's target cut, grown,
// changed at its end or in its middle, or the same.
#include <QtTest>

#include "core/base/json_file.h"
#include "core/checkpoint/encdec_model.h"
#include "tests/encdec_trace_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

constexpr double kTolerance = 1e-5;

/// What `earlier` (a pass of the same source) lends: the encoder, and the first `rows` decoder rows.
EncDecReuse reuseOf(const EncDecTrace& earlier, int rows) {
  EncDecReuse r;
  r.encoder = &earlier.encoder;
  r.encoderOut = &earlier.encoderOut;
  r.cross = &earlier.cross;
  r.decoder = &earlier.decoder;
  r.decoderOut = &earlier.decoderOut;
  r.logits = &earlier.logits;
  r.decoderRows = rows;
  return r;
}

}  // namespace

class TestEncDecReuse : public QObject {
  Q_OBJECT

 private slots:
  void reusedEqualsFresh_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("edit");
    for (const char* name : {"marian-tied", "marian-separate", "bart", "t5-v1_0", "t5-v1_1"})
      for (const char* edit : {"grown", "last-changed", "middle-changed", "same", "first-changed", "shorter"})
        QTest::newRow((std::string(name) + " " + edit).c_str()) << name << edit;
  }
  void cleanupTestCase() { qInfo("worst relative error, reused vs fresh: %.3g", test::worstRelativeError()); }

  /// The earlier run's target is the reference's edited by `edit`; the run being checked is the reference's own
  /// texts. Rows reused = the common prefix (at most n − 1); the encoder always (same source).
  void reusedEqualsFresh() {
    QFETCH(QString, name);
    QFETCH(QString, edit);
    const std::string dir = std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/" + name.toStdString();
    const auto model = EncDecModel::open(dir);
    const nlohmann::json ref = readJsonFile(dir + "/reference.json");
    const std::vector<int> src = ref["source_ids"].get<std::vector<int>>();
    const std::vector<int> tgt = ref["target_ids"].get<std::vector<int>>();
    const int n = static_cast<int>(tgt.size()), vocab = model->config().decoderVocabSize;
    QVERIFY(n >= 4);
    std::vector<int> earlierTgt = tgt;
    int rows = 0;  // the common prefix, capped at n − 1
    const auto other = [&](int id) { return (id + 1) % vocab; };
    if (edit == "grown") {
      earlierTgt.resize(static_cast<std::size_t>(n - 2));  // the target grew by two tokens
      rows = n - 2;
    } else if (edit == "last-changed") {
      earlierTgt.back() = other(earlierTgt.back());
      rows = n - 1;
    } else if (edit == "middle-changed") {
      earlierTgt[2] = other(earlierTgt[2]);
      rows = 2;
    } else if (edit == "same") {
      rows = n - 1;
    } else if (edit == "first-changed") {
      earlierTgt[0] = other(earlierTgt[0]);
      rows = 0;
    } else {  // the earlier target was longer: the run's target is its prefix
      earlierTgt.push_back(other(tgt.back()));
      earlierTgt.push_back(tgt.front());
      rows = n - 1;
    }
    const EncDecTrace earlier = model->forward(src, earlierTgt);
    const EncDecTrace reused = model->forward(src, tgt, reuseOf(earlier, rows));
    const EncDecTrace fresh = model->forward(src, tgt);
    // The encoder was taken, not run: its heads' K and V are the earlier run's matrices, and so are cross-attention's.
    QVERIFY(reused.encoder.layers[0].heads[0].keys == earlier.encoder.layers[0].heads[0].keys);
    QVERIFY(reused.cross[0].heads[0].values == earlier.cross[0].heads[0].values);
    QVERIFY(fresh.cross[0].heads[0].values != earlier.cross[0].heads[0].values);
    int bad = test::compareStackTraces(reused.encoder, fresh.encoder, kTolerance, "encoder");
    bad += test::compareStackTraces(reused.decoder, fresh.decoder, kTolerance, "decoder");
    bad += test::compareCrossAndOutputs(reused, fresh, kTolerance);
    QCOMPARE(bad, 0);
    QCOMPARE(reused.logits.rows(), static_cast<Eigen::Index>(n));
  }

  /// Rows the earlier run does not hold (another token at a row it claims, or all n rows) are a programming error,
  /// refused rather than computed wrong.
  void refusesRowsTheEarlierRunCannotGive() {
    const auto model = EncDecModel::open(std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/bart");
    const nlohmann::json ref = readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/bart/reference.json");
    const std::vector<int> src = ref["source_ids"].get<std::vector<int>>();
    std::vector<int> tgt = ref["target_ids"].get<std::vector<int>>();
    const EncDecTrace earlier = model->forward(src, tgt);
    QVERIFY_THROWS_EXCEPTION(std::logic_error,
                             model->forward(src, tgt, reuseOf(earlier, static_cast<int>(tgt.size()))));
    tgt[1] = (tgt[1] + 1) % model->config().decoderVocabSize;
    QVERIFY_THROWS_EXCEPTION(std::logic_error, model->forward(src, tgt, reuseOf(earlier, 3)));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestEncDecReuse)
#include "test_encdec_reuse.moc"
