// The Training view's probe of the tiny encoder–decoder (core/train/encdec_probe.h): its tokens and alignment written
// out by hand for reversal and sorting, the alignment score of hand-made maps (perfect, uniform, a mix), and a
// snapshot's maps = the network's own forward in double precision.
#include <QtTest>

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
