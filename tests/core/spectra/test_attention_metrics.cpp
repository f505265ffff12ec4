// Metrics of attention matrices on hand-computed cases and numpy's rank convention.
#include <QtTest>

#include "core/base/rng.h"
#include "core/spectra/attention_metrics.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

Q_DECLARE_METATYPE(Eigen::MatrixXd)

namespace {
MatD rows(std::initializer_list<std::initializer_list<double>> r) {
  MatD m(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(r.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& row : r) {
    Eigen::Index j = 0;
    for (double v : row) m(i, j++) = v;
    ++i;
  }
  return m;
}
}  // namespace

class TestAttentionMetrics : public QObject {
  Q_OBJECT
 private slots:
  void rankLikeNumpy_data() {
    QTest::addColumn<MatD>("a");
    QTest::addColumn<int>("rank");
    QTest::newRow("dependent rows") << rows({{1, 2, 3}, {2, 4, 6}, {1, 0, 1}}) << 2;  // numpy: 2
    QTest::newRow("identity") << MatD(MatD::Identity(5, 5)) << 5;
    QTest::newRow("zeros") << MatD(MatD::Zero(4, 4)) << 0;
    QTest::newRow("rectangular") << rows({{1, 0, 0, 0}, {0, 1e-3, 0, 0}}) << 2;
    QTest::newRow("below tolerance") << rows({{1, 0}, {0, 1e-17}}) << 1;
    // seeds/000: x = linspace(−1, 1, 100): rank(x·xᵀ) = 1, rank(exp(x·xᵀ)) = 11 (numpy 1.24; the
    // 11th/12th singular values are 20× above and 0.46× below the tolerance).
    VecD x = VecD::LinSpaced(100, -1, 1);
    const MatD xxT = x * x.transpose();
    QTest::newRow("x·xᵀ") << xxT << 1;
    QTest::newRow("exp(x·xᵀ)") << MatD(xxT.array().exp().matrix()) << 11;
  }
  void rankLikeNumpy() {
    QFETCH(MatD, a);
    QFETCH(int, rank);
    QCOMPARE(numericalRank(a), rank);
  }

  void expRaisesRankOfRandomOuterProduct() {
    // Su's experiment with x ~ N(0, 1), n = 100: rank 1 becomes "about 17–18".
    Rng rng(8338);
    VecD x(100);
    for (Eigen::Index i = 0; i < 100; ++i) x(i) = rng.normal();
    const MatD y = x * x.transpose();
    QCOMPARE(numericalRank(y), 1);
    const int r = numericalRank(y.array().exp().matrix());
    QVERIFY2(r >= 12 && r <= 24, qPrintable(QString("rank %1").arg(r)));
  }

  void entropy_data() {
    QTest::addColumn<MatD>("a");
    QTest::addColumn<double>("expected");
    QTest::newRow("uniform rows") << MatD(MatD::Constant(3, 4, 0.25)) << std::log(4.0);
    QTest::newRow("one-hot rows") << MatD(MatD::Identity(3, 3)) << 0.0;
    QTest::newRow("half/half and one-hot") << rows({{0.5, 0.5}, {1, 0}}) << std::log(2.0) / 2;
    QTest::newRow("negative weights use |a|") << rows({{0.5, -0.5}}) << std::log(2.0);
  }
  void entropy() {
    QFETCH(MatD, a);
    QFETCH(double, expected);
    QVERIFY(std::abs(meanRowEntropy(a) - expected) < 1e-14);
  }

  void sparsity_data() {
    QTest::addColumn<MatD>("a");
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("expected");
    const MatD a = rows({{0.5, 0.25, 0.25}, {0.1, 0.1, 0.8}});
    QTest::newRow("top-1") << a << 1 << (0.5 + 0.8) / 2;
    QTest::newRow("top-2") << a << 2 << (0.75 + 0.9) / 2;
    QTest::newRow("k ≥ n is 1") << a << 7 << 1.0;
    QTest::newRow("uniform top-1") << MatD(MatD::Constant(4, 4, 0.25)) << 1 << 0.25;
  }
  void sparsity() {
    QFETCH(MatD, a);
    QFETCH(int, k);
    QFETCH(double, expected);
    QVERIFY(std::abs(topKSparsity(a, k) - expected) < 1e-14);
  }

  void errors() {
    const MatD a = rows({{1, 0}, {0, 1}}), b = rows({{1, 1}, {0, 1}});
    QVERIFY(std::abs(relativeFrobeniusError(b, a) - 1 / std::sqrt(2.0)) < 1e-15);
    QCOMPARE(relativeFrobeniusError(a, a), 0.0);
    QVERIFY(std::isinf(relativeFrobeniusError(a, MatD::Zero(2, 2))));
    QVERIFY(std::abs(meanSquaredError(a, b) - 0.25) < 1e-15);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestAttentionMetrics)
#include "test_attention_metrics.moc"
