// Feature maps of linear attention and Performer (core/variants/feature_maps.h), and the head-size sweep.
#include <QtTest>

#include <cmath>

#include "core/base/rng.h"
#include "core/spectra/spectrum.h"
#include "core/variants/feature_maps.h"
#include "core/variants/head_size_sweep.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
Q_DECLARE_METATYPE(attnlab::FeatureMap)

namespace {

MatD gaussian(int rows, int cols, uint64_t seed, double std = 1.0) {
  Rng rng(seed);
  MatD m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = std * rng.normal();
  return m;
}

}  // namespace

class TestFeatureMaps : public QObject {
  Q_OBJECT
 private slots:
  void scalarValues_data() {
    QTest::addColumn<FeatureMap>("map");
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("expected");
    QTest::newRow("1+elu(0)") << FeatureMap::EluPlusOne << 0.0 << 1.0;
    QTest::newRow("1+elu(2)") << FeatureMap::EluPlusOne << 2.0 << 3.0;
    QTest::newRow("1+elu(-1)") << FeatureMap::EluPlusOne << -1.0 << std::exp(-1.0);
    QTest::newRow("exp(1)") << FeatureMap::Exp << 1.0 << M_E;
    QTest::newRow("relu(-2)") << FeatureMap::Relu << -2.0 << 0.0;
    QTest::newRow("relu(3)") << FeatureMap::Relu << 3.0 << 3.0;
  }
  void scalarValues() {
    QFETCH(FeatureMap, map);
    QFETCH(double, x);
    QFETCH(double, expected);
    QCOMPARE(featureScalar(map, x), expected);
  }

  void eluPlusOneIsTheTangentOfExp() {
    // 1 + elu(x) = 1 + x for x > 0 and e^x below: it touches e^x at 0 with slope 1, and
    // |e^x − (1 + elu(x))| ≤ x² near 0 (second order).
    for (double x = -0.1; x <= 0.1; x += 0.01)
      QVERIFY(std::abs(std::exp(x) - featureScalar(FeatureMap::EluPlusOne, x)) <= x * x);
    QVERIFY_THROWS_EXCEPTION(std::exception, featureScalar(FeatureMap::Performer, 0.0));
  }

  void orthogonalOmegaHasOrthogonalBlocks() {
    const int d = 6, m = 15;  // two full blocks of 6 rows and a partial one of 3
    const MatD w = performerOmega(d, m, 3, true);
    QCOMPARE(w.rows(), Eigen::Index(m));
    for (int b = 0; b < m; b += d)
      for (int i = b; i < std::min(m, b + d); ++i)
        for (int j = i + 1; j < std::min(m, b + d); ++j)
          QVERIFY(std::abs(w.row(i).dot(w.row(j))) <= 1e-12 * w.row(i).norm() * w.row(j).norm());
    QCOMPARE(performerOmega(d, m, 3, true), w);  // deterministic
    // Every row keeps the N(0, I) marginal: no direction is preferred. (QR's own sign convention
    // would bias the mean of every coordinate to about ±0.18 here.)
    const MatD many = performerOmega(4, 8192, 5, true);
    QVERIFY(many.colwise().mean().cwiseAbs().maxCoeff() <= 0.05);
    QVERIFY((many.transpose() * many / 8192.0 - MatD::Identity(4, 4)).cwiseAbs().maxCoeff() <= 0.06);
  }

  void performerApproximatesSoftmaxKernel_data() {
    QTest::addColumn<bool>("orthogonal");
    QTest::addColumn<double>("tol");
    // m = 8192 features on d = 4, small inputs: Monte-Carlo error well under 1 % per pair on average;
    // 6 % allows the tails (the worst of 100 pairs).
    QTest::newRow("iid") << false << 0.06;
    QTest::newRow("orthogonal") << true << 0.06;
  }
  void performerApproximatesSoftmaxKernel() {
    QFETCH(bool, orthogonal);
    QFETCH(double, tol);
    const int d = 4, n = 10;
    const MatD q = gaussian(n, d, 11, 0.3), k = gaussian(n, d, 12, 0.3);
    const MatD omega = performerOmega(d, 8192, 5, orthogonal);
    const MatD approx = applyFeatureMap(FeatureMap::Performer, q, &omega) *
                        applyFeatureMap(FeatureMap::Performer, k, &omega).transpose();
    const MatD exact = ((q * k.transpose()) / std::sqrt(double(d))).array().exp().matrix();
    const double worst = ((approx - exact).array() / exact.array()).abs().maxCoeff();
    QVERIFY2(worst <= tol, qPrintable(QString("worst relative error %1").arg(worst)));
  }

  void linearAttentionRowsAndMask() {
    const MatD q = gaussian(12, 3, 1), k = gaussian(12, 3, 2);
    int empty = -1;
    const MatD a = linearAttention(applyFeatureMap(FeatureMap::EluPlusOne, q),
                                   applyFeatureMap(FeatureMap::EluPlusOne, k), true, &empty);
    QCOMPARE(empty, 0);
    ATTNLAB_COMPARE_MATRICES(MatD(a.rowwise().sum()), MatD(MatD::Ones(12, 1)), 1e-14);
    QCOMPARE(MatD(a.triangularView<Eigen::StrictlyUpper>()), MatD(MatD::Zero(12, 12)));
    // relu: a query with no positive coordinate has φ(q) = 0, so its row cannot be normalised.
    MatD qNeg = q;
    qNeg.row(4) = -qNeg.row(4).cwiseAbs();
    const MatD r =
        linearAttention(applyFeatureMap(FeatureMap::Relu, qNeg), applyFeatureMap(FeatureMap::Relu, k), false, &empty);
    QVERIFY(empty >= 1);
    QCOMPARE(r.row(4).sum(), 0.0);
  }

  void linearRankBoundedByFeatures_data() {
    QTest::addColumn<FeatureMap>("map");
    QTest::addColumn<int>("bound");
    QTest::newRow("1+elu: ≤ d") << FeatureMap::EluPlusOne << 4;
    QTest::newRow("exp: ≤ d") << FeatureMap::Exp << 4;
    QTest::newRow("relu: ≤ d") << FeatureMap::Relu << 4;
    QTest::newRow("performer: ≤ m") << FeatureMap::Performer << 16;
  }
  void linearRankBoundedByFeatures() {
    QFETCH(FeatureMap, map);
    QFETCH(int, bound);
    const MatD q = gaussian(64, 4, 21), k = gaussian(64, 4, 22);
    const MatD omega = performerOmega(4, 16, 1, true);
    const MatD a = linearAttention(applyFeatureMap(map, q, &omega), applyFeatureMap(map, k, &omega), false);
    QVERIFY(numericalRank(a) <= bound);
    // Softmax of the same scores is not bounded by d.
    MatD s = (q * k.transpose()) / 2.0;
    QVERIFY(numericalRank(MatD(s.array().exp().matrix())) > bound);
  }

  void compareOnRandomHead() {
    const MatD q = gaussian(48, 8, 31), k = gaussian(48, 8, 32);
    FeatureMapSettings s;
    s.performerFeatures = 1024;
    const FeatureMapComparison c = compareFeatureMaps(q, k, false, s);
    QCOMPARE(int(c.maps.size()), 4);
    QCOMPARE(c.maps[3].features, 1024);
    QCOMPARE(c.maps[0].features, 8);
    for (const FeatureMapEntry& e : c.maps) {
      QVERIFY(e.correlation > -1.0 - 1e-12 && e.correlation <= 1.0 + 1e-12);
      QVERIFY(e.entropy <= std::log(48.0) + 1e-12);
    }
    // Linear attention is more diffuse than softmax and its rank is bounded by d.
    QVERIFY(c.maps[0].entropy > c.softmaxEntropy);
    QVERIFY(c.maps[0].numericalRank <= 8);
    QVERIFY(c.softmaxRank > 8);
    // Performer estimates the very kernel, with a variance that grows like e^{‖q'+k'‖²}: on inputs of
    // moderate norm it correlates almost perfectly.
    const FeatureMapComparison small = compareFeatureMaps(MatD(0.5 * q), MatD(0.5 * k), false, s);
    QVERIFY2(small.maps[3].correlation > 0.95, qPrintable(QString::number(small.maps[3].correlation)));
    // Default m is 4·d_head (the Performer paper's choice).
    QCOMPARE(compareFeatureMaps(q, k, true, FeatureMapSettings{}).maps[3].features, 32);
  }

  void headSizeSweepShowsTheBound() {
    HeadSizeSettings s;
    s.n = 64;
    s.maxKeySize = 8;
    const HeadSizeSweep sweep = runHeadSizeSweep(s);
    QCOMPARE(sweep.keySizes, (std::vector<int>{1, 2, 4, 8}));
    QCOMPARE(int(sweep.curves.size()), 5);
    QCOMPARE(QString::fromStdString(sweep.curves[0].name), QString("softmax"));
    for (std::size_t p = 0; p < sweep.keySizes.size(); ++p) {
      const int d = sweep.keySizes[p];
      for (int c = 1; c <= 3; ++c) QVERIFY(sweep.curves[c].rank[p] <= d);  // 1+elu, exp, relu
      QVERIFY(sweep.curves[4].rank[p] <= 4 * d);                           // Performer, m = 4d
      QVERIFY(sweep.curves[0].rank[p] > d);                                // softmax is not bounded
    }
    QCOMPARE(headSizeKeySizes(12), (std::vector<int>{1, 2, 4, 8, 12}));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestFeatureMaps)
#include "test_feature_maps.moc"
