// Rank-collapse metrics on hand-computed cases (core/collapse/collapse_metrics.h).
#include <QtTest>

#include "core/collapse/collapse_metrics.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

Q_DECLARE_METATYPE(attnlab::MatD)

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

class TestCollapseMetrics : public QObject {
  Q_OBJECT
 private slots:
  void compositeNormHandExample() {
    // M = [[1, −2], [3, 4], [−5, 6]]: column abs-sums 9 and 12 → ‖M‖₁ = 12; row abs-sums 3, 7, 11 →
    // ‖M‖_∞ = 11; composite √(12·11) = √132.
    const MatD m = rows({{1, -2}, {3, 4}, {-5, 6}});
    QCOMPARE(norm1(m), 12.0);
    QCOMPARE(normInf(m), 11.0);
    QCOMPARE(compositeNorm(m), std::sqrt(132.0));
  }

  void residualHandExample() {
    // Token mean of [[1, −2], [3, 4], [−5, 6]] is (−1/3, 8/3); res = [[4/3, −14/3], [10/3, 4/3], [−14/3, 10/3]].
    const MatD m = rows({{1, -2}, {3, 4}, {-5, 6}});
    const MatD want = rows({{4.0 / 3, -14.0 / 3}, {10.0 / 3, 4.0 / 3}, {-14.0 / 3, 10.0 / 3}});
    ATTNLAB_COMPARE_MATRICES(tokenResidual(m), want, 1e-15);
    // Composite: column sums 28/3 and 28/3, row sums 6, 14/3, 8 → √(28/3 · 8) over √132.
    QCOMPARE(relativeResidual(m, ResidualNorm::Composite), std::sqrt(28.0 / 3 * 8) / std::sqrt(132.0));
    // Frobenius: ‖res‖² = (16 + 196 + 100 + 16 + 196 + 100)/9 = 624/9, ‖M‖² = 91.
    QVERIFY(std::abs(relativeResidual(m, ResidualNorm::Frobenius) - std::sqrt(624.0 / 9 / 91)) < 1e-15);
  }

  void exactCases_data() {
    QTest::addColumn<MatD>("x");
    QTest::addColumn<int>("norm");
    QTest::addColumn<double>("expected");
    const MatD same = rows({{0.1, -7.3, 1e-3}, {0.1, -7.3, 1e-3}, {0.1, -7.3, 1e-3}});  // 3·0.1/3 ≠ 0.1 in doubles
    const MatD zeroMean = rows({{1, 2.5, -4}, {-3, 0.5, 4}, {2, -3, 0}});
    for (int n : {0, 1}) {
      const char* name = n == 0 ? "composite" : "fro";
      QTest::newRow(qPrintable(QString("identical rows, %1").arg(name))) << same << n << 0.0;
      QTest::newRow(qPrintable(QString("zero token-mean, %1").arg(name))) << zeroMean << n << 1.0;
      QTest::newRow(qPrintable(QString("one token, %1").arg(name))) << rows({{3, -1}}) << n << 0.0;
      QTest::newRow(qPrintable(QString("zero matrix, %1").arg(name))) << MatD(MatD::Zero(4, 3)) << n << 0.0;
    }
  }
  void exactCases() {
    QFETCH(MatD, x);
    QFETCH(int, norm);
    QFETCH(double, expected);
    // Exact: the shifted mean makes identical rows give exactly 0, and zero-mean rows exactly themselves.
    QCOMPARE(relativeResidual(x, norm == 0 ? ResidualNorm::Composite : ResidualNorm::Frobenius), expected);
  }

  void rank1Residual_data() {
    QTest::addColumn<MatD>("m");
    QTest::addColumn<double>("expected");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("rank 1 (outer product)")
        << MatD(VecD::LinSpaced(4, 1, 4) * VecD::LinSpaced(3, -1, 2).transpose()) << 0.0 << 1e-15;
    QTest::newRow("identity 4x4: sqrt(3/4)") << MatD(MatD::Identity(4, 4)) << std::sqrt(0.75) << 1e-15;
    QTest::newRow("diag(3, 4): 4/5") << rows({{3, 0}, {0, 4}}) << 0.6 << 1e-15;
    QTest::newRow("zero") << MatD(MatD::Zero(3, 3)) << 0.0 << 0.0;
  }
  void rank1Residual() {
    QFETCH(MatD, m);
    QFETCH(double, expected);
    QFETCH(double, tolerance);
    QVERIFY2(std::abs(attnlab::rank1Residual(m) - expected) <= tolerance,
             qPrintable(QString::number(attnlab::rank1Residual(m), 'g', 17)));
  }

  void cosineSimilarity() {
    // Rows (1, 0), (0, 2), (−3, 0), (0, 0): cosines 0, −1, and 0 for the zero row.
    const MatD c = tokenCosineSimilarity(rows({{1, 0}, {0, 2}, {-3, 0}, {0, 0}}));
    const MatD want = rows({{1, 0, -1, 0}, {0, 1, 0, 0}, {-1, 0, 1, 0}, {0, 0, 0, 0}});
    ATTNLAB_COMPARE_MATRICES(c, want, 1e-15);
  }

  void singularValuesSorted() {
    const VecD s = singularValues(rows({{0, 2}, {5, 0}}));
    QCOMPARE(s(0), 5.0);
    QCOMPARE(s(1), 2.0);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCollapseMetrics)
#include "test_collapse_metrics.moc"
