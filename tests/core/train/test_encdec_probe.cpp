// The Training view's probe of the tiny encoder–decoder (core/train/encdec_probe.h): its tokens and alignment written
// out by hand for reversal and sorting, the alignment score of hand-made maps (perfect, uniform, a mix), and a
// snapshot's maps = the network's own forward in double precision.
#include <QtTest>

#include <algorithm>

#include "core/base/errors.h"
#include "core/train/encdec_probe.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestEncDecProbe : public QObject {
  Q_OBJECT

 private slots:
  void probeTokensByHand() {
    TinyEncDecConfig c;
    c.maxLength = 4;
    const EncDecProbe r = encDecProbe(EncDecTask::Reverse, c);
    QCOMPARE(r.source, (std::vector<int>{4, 5, 6, 7, 2}));  // a b c d </s>
    QCOMPARE(r.target, (std::vector<int>{2, 7, 6, 5, 4}));  // </s> d c b a
    QCOMPARE(r.labels, (std::vector<int>{7, 6, 5, 4, 2}));
    QCOMPARE(r.aligned, (std::vector<int>{3, 2, 1, 0}));
    // Sort: symbols (7i + 3) mod 20 = 3, 10, 17, 4 → ids 7, 14, 21, 8; sorted 7, 8, 14, 21 read positions 0, 3, 1, 2.
    const EncDecProbe s = encDecProbe(EncDecTask::Sort, c);
    QCOMPARE(s.source, (std::vector<int>{7, 14, 21, 8, 2}));
    QCOMPARE(s.target, (std::vector<int>{2, 7, 8, 14, 21}));
    QCOMPARE(s.aligned, (std::vector<int>{0, 3, 1, 2}));
  }

  // The made-up dictionary of 20 symbols: k = 10 source words a–j, target words k–t, stride 3 (coprime to 10):
  // word i → target word (3i + 3) mod 10, so a → n (id 17), b → q (20), d → m (16), j → k (14).
  void translationByHand() {
    QCOMPARE(translationOf(4, 20), 17);
    QCOMPARE(translationOf(5, 20), 20);
    QCOMPARE(translationOf(7, 20), 16);
    QCOMPARE(translationOf(13, 20), 14);
    std::vector<int> seen;  // a permutation onto the second half
    for (int id = 4; id < 14; ++id) seen.push_back(translationOf(id, 20));
    std::sort(seen.begin(), seen.end());
    for (int i = 0; i < 10; ++i) QCOMPARE(seen[static_cast<std::size_t>(i)], 14 + i);
    // 12 symbols: k = 6, stride 5 (3 and 4 share a factor with 6): word i → (5i + 3) mod 6.
    QCOMPARE(translationOf(4, 12), 4 + 6 + 3);
    QCOMPARE(translationOf(5, 12), 4 + 6 + 2);
    TinyEncDecConfig c;
    c.maxLength = 3;
    const EncDecProbe t = encDecProbe(EncDecTask::Translate, c);
    QCOMPARE(t.source, (std::vector<int>{4, 5, 6, 2}));     // a b c </s>
    QCOMPARE(t.target, (std::vector<int>{2, 17, 20, 23}));  // </s> n q t
    QCOMPARE(t.aligned, (std::vector<int>{0, 1, 2}));
    // Training batches draw the source from the first half only; odd alphabets are refused.
    const EncDecBatch b = sampleEncDecBatch(EncDecTask::Translate, c, 16, 3, 9, false);
    for (std::size_t i = 0; i < b.source.size(); ++i)
      QVERIFY(b.source[i] == kEncDecEos || (b.source[i] >= 4 && b.source[i] < 14));
    EncDecTrainSettings s;
    s.task = EncDecTask::Translate;
    s.model.symbols = 7;
    QVERIFY_THROWS_EXCEPTION(InputError, validate(s));
  }

  // A few hundred steps of the translation: the cross-attention moves onto the diagonal, held-out accuracy climbs.
  void translationLearnsTheDiagonal() {
    EncDecTrainSettings s;
    s.task = EncDecTask::Translate;
    s.adam.lr = 0.01;
    s.threads = 1;
    EncDecTrainer t(s);
    const EncDecSnapshot before = encDecSnapshot(s, t.params());
    for (int i = 0; i < 300; ++i) t.step();
    const EncDecSnapshot after = encDecSnapshot(s, t.params());
    double b = 0, a = 0;
    for (std::size_t h = 0; h < before.alignment[0].size(); ++h)
      b = std::max(b, before.alignment[0][h]), a = std::max(a, after.alignment[0][h]);
    qInfo("translate: diagonal (best head) %.3f -> %.3f; held-out accuracy %.3f -> %.3f", b, a, before.heldOut.accuracy,
          after.heldOut.accuracy);
    QVERIFY(b < 0.2);
    QVERIFY(a > 0.8);                       // measured 1.000 on one thread
    QVERIFY(after.heldOut.accuracy > 0.9);  // measured 1.000 (0.083 untrained)
  }

  void alignmentScoreByHand() {
    const std::vector<int> anti{3, 2, 1, 0};
    Eigen::MatrixXf perfect = Eigen::MatrixXf::Zero(5, 5);
    for (int i = 0; i < 4; ++i) perfect(i, 3 - i) = 1;
    perfect(4, 4) = 1;
    QCOMPARE(alignmentScore(perfect, anti), 1.0);
    const Eigen::MatrixXf uniform = Eigen::MatrixXf::Constant(5, 5, 0.2f);
    QVERIFY(std::abs(alignmentScore(uniform, anti) - 0.2) < 1e-7);
    // Rows 0 and 1 aligned, rows 2 and 3 on the diagonal instead: (1 + 1 + 0 + 0) / 4.
    Eigen::MatrixXf half = Eigen::MatrixXf::Zero(5, 5);
    half(0, 3) = half(1, 2) = half(2, 2) = half(3, 3) = 1;
    QCOMPARE(alignmentScore(half, anti), 0.5);
  }

  void snapshotMapsAreTheForward() {
    EncDecTrainSettings s;
    s.model.decoderLayers = 2;
    s.model.heads = 4;
    s.model.maxLength = 6;
    const TinyEncDecParams<float> p = initTinyEncDecParams(s.model);
    const EncDecSnapshot snap = encDecSnapshot(s, p, 2);
    const EncDecProbe probe = encDecProbe(s.task, s.model);
    TinyEncDecForward<double> f;
    tinyEncDecForward(s.model, p.cast<double>(), probe.source.data(), probe.target.data(), 1, 7, 7, f);
    QCOMPARE(snap.cross.size(), std::size_t(2));
    for (std::size_t l = 0; l < 2; ++l)
      for (std::size_t h = 0; h < 4; ++h) {
        const Eigen::MatrixXd& ref = f.decoder[l].cross.attention[h];
        QCOMPARE(snap.cross[l][h].rows(), Eigen::Index(7));
        QVERIFY((snap.cross[l][h].cast<double>() - ref).cwiseAbs().maxCoeff() < 1e-6);
        double anti = 0;
        for (int i = 0; i < 6; ++i) anti += ref(i, 5 - i) / 6;
        QVERIFY(std::abs(snap.alignment[l][h] - anti) < 1e-6);
      }
    QCOMPARE(snap.heldOut.pairs, 2 * (6 - 3 + 1));  // 2 per length 3 … 6
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestEncDecProbe)
#include "test_encdec_probe.moc"
