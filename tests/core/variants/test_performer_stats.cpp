// Performer's random features checked statistically with fixed seeds (FAVOR+, Choromanski et al.
// 2021): the estimate of exp(x·y) is unbiased, its variance is Lemma 2's closed form, orthogonal
// features beat iid ones at m = d, and the approximation of softmax improves with m.
#include <QtTest>

#include "core/base/rng.h"
#include "core/variants/performer.h"
#include "core/variants/variant_analysis.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

Q_DECLARE_METATYPE(Eigen::VectorXd)

namespace {

VecD vec(std::initializer_list<double> v) {
  VecD x(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double e : v) x(i++) = e;
  return x;
}

/// Lemma 2: MSE⁺ = e^{‖x+y‖²}·SM²·(1 − e^{−‖x+y‖²})/m, SM = e^{x·y}.
double msePositive(const VecD& x, const VecD& y, int m) {
  const double s = (x + y).squaredNorm(), sm = std::exp(x.dot(y));
  return std::exp(s) * sm * sm * (1 - std::exp(-s)) / m;
}

/// Lemma 2: MSE^trig = e^{‖x+y‖²}·SM⁻²·(1 − e^{−‖x−y‖²})²/(2m).
double mseTrig(const VecD& x, const VecD& y, int m) {
  const double s = (x + y).squaredNorm(), sm = std::exp(x.dot(y));
  const double t = 1 - std::exp(-(x - y).squaredNorm());
  return std::exp(s) / (sm * sm) * t * t / (2.0 * m);
}

/// φ(x)·φ(y) from the core's feature maps, plain (no stabiliser: the raw estimator of e^{x·y}).
double estimate(const VecD& x, const VecD& y, const MatD& w, FeatureKind kind) {
  const MatD xr = x.transpose(), yr = y.transpose();
  if (kind == FeatureKind::Positive)
    return (positiveFeatures(xr, w, false, true) * positiveFeatures(yr, w, false, true).transpose())(0, 0);
  return (trigFeatures(xr, w, false, true) * trigFeatures(yr, w, false, true).transpose())(0, 0);
}

MatD gaussian(Eigen::Index rows, Eigen::Index cols, uint64_t seed, double sigma) {
  Rng rng(seed);
  MatD m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = sigma * rng.normal();
  return m;
}

}  // namespace

class TestPerformerStats : public QObject {
  Q_OBJECT
 private slots:
  void unbiasedWithLemma2Variance_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<VecD>("x");
    QTest::addColumn<VecD>("y");
    QTest::addColumn<double>("varianceTol");  // relative tolerance of the sample variance
    const VecD x1 = vec({0.3, -0.2, 0.1, 0.25}), y1 = vec({0.1, 0.2, -0.3, 0.05});
    const VecD x2 = vec({0.5, 0.1, -0.4, 0.2}), y2 = vec({0.3, 0.3, -0.2, 0.1});
    QTest::newRow("positive small") << int(FeatureKind::Positive) << x1 << y1 << 0.08;
    QTest::newRow("positive ‖x+y‖²≈1") << int(FeatureKind::Positive) << x2 << y2 << 0.12;
    QTest::newRow("trig small") << int(FeatureKind::Trig) << x1 << y1 << 0.08;
    QTest::newRow("trig ‖x+y‖²≈1") << int(FeatureKind::Trig) << x2 << y2 << 0.08;
  }
  void unbiasedWithLemma2Variance() {
    QFETCH(int, kind);
    QFETCH(VecD, x);
    QFETCH(VecD, y);
    QFETCH(double, varianceTol);
    const FeatureKind k = static_cast<FeatureKind>(kind);
    const int m = 16, draws = 20000, d = static_cast<int>(x.size());
    double sum = 0, sumSq = 0;
    for (int r = 0; r < draws; ++r) {
      const double e = estimate(x, y, drawFeatures(d, m, false, mixSeed(2024, r)), k);
      sum += e;
      sumSq += e * e;
    }
    const double mean = sum / draws, var = sumSq / draws - mean * mean;
    const double truth = std::exp(x.dot(y));
    const double expectedVar = k == FeatureKind::Positive ? msePositive(x, y, m) : mseTrig(x, y, m);
    // Unbiased: the sample mean within 4 standard errors of e^{x·y}.
    const double se = std::sqrt(expectedVar / draws);
    QVERIFY2(std::abs(mean - truth) < 4 * se,
             qPrintable(QString("mean %1 vs e^{x·y} = %2 (SE %3)").arg(mean).arg(truth).arg(se)));
    // MSE = variance for an unbiased estimator: matches Lemma 2.
    QVERIFY2(std::abs(var / expectedVar - 1) < varianceTol,
             qPrintable(QString("variance %1 vs Lemma 2 %2").arg(var).arg(expectedVar)));
  }

  void orthogonalFeaturesHaveUnitMarginals() {
    // Each orthogonal row keeps ω ~ N(0, I_d): E‖ω‖² = d; rows within a block are orthogonal.
    const int d = 8;
    const MatD w = drawFeatures(d, 4096, true, 9);
    QVERIFY(std::abs(w.rowwise().squaredNorm().mean() / d - 1) < 0.05);
    const MatD block = w.topRows(d);
    MatD gram = block * block.transpose();
    gram.diagonal().setZero();
    QVERIFY(gram.cwiseAbs().maxCoeff() < 1e-10);
  }

  void orthogonalBeatsIidAtMEqualsD_data() {
    QTest::addColumn<int>("kind");
    QTest::addRow("positive") << int(FeatureKind::Positive);
    QTest::addRow("trig") << int(FeatureKind::Trig);
  }
  void orthogonalBeatsIidAtMEqualsD() {
    QFETCH(int, kind);
    const int n = 24, d = 16;
    const MatD q = gaussian(n, d, 61, 0.5), k = gaussian(n, d, 62, 0.5);
    VariantSettings s;
    s.redraws = 64;
    const PerformerCurve c = performerCurve(q, k, s, false, d);
    QCOMPARE(c.features.back(), d);
    double iid = 0, ortho = 0;
    for (const CurveSeries& series : c.series) {
      if (series.kind != static_cast<FeatureKind>(kind)) continue;
      (series.orthogonal ? ortho : iid) = series.meanError.back();
    }
    QVERIFY2(ortho < iid, qPrintable(QString("orthogonal %1 vs iid %2 at m = d").arg(ortho).arg(iid)));
  }

  void errorFallsWithM() {
    // Small inputs: for large ‖q+k‖² the positive estimator is log-normal with a heavy tail and
    // reaches its 1/√m regime only for m ≫ e^{‖q+k‖²}.
    const MatD q = gaussian(16, 8, 71, 0.3), k = gaussian(16, 8, 72, 0.3);
    VariantSettings s;
    s.redraws = 8;
    const PerformerCurve c = performerCurve(q, k, s, false, 1024);
    for (const CurveSeries& series : c.series) {
      // Monte Carlo error ~ 1/√m: from m = 4 to m = 1024 it drops by about 16; ask for 8.
      QVERIFY2(series.meanError.back() < series.meanError[2] / 8, qPrintable(QString("%1 %2: %3 → %4")
                                                                                 .arg(toString(series.kind))
                                                                                 .arg(series.orthogonal)
                                                                                 .arg(series.meanError[2])
                                                                                 .arg(series.meanError.back())));
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestPerformerStats)
#include "test_performer_stats.moc"
