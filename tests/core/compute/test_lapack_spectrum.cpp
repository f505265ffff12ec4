// The LAPACK path of the spectra (core/compute/lapack_spectrum.h) against Eigen's BDCSVD and EigenSolver, which
// the program used before and still uses for small matrices: the same singular values and eigenvalues to
// near machine precision on attention matrices, wide and tall matrices and a rank-1 matrix; and the tuned
// shift sizes of core/compute/lapack_tuning.h: in effect, valid, and without effect on the eigenvalues.
#include <QtTest>

#include <algorithm>

#include "core/base/rng.h"
#include "core/compute/eigen_decompositions.h"
#include "core/compute/lapack_spectrum.h"
#include "core/compute/lapack_tuning.h"
#include "core/spectra/attention_metrics.h"
#include "core/spectra/spectrum.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

/// softmax(Q·Kᵀ/√d) with Gaussian Q, K [n, d]: row-stochastic, full rank, a cluster of tiny eigenvalues.
MatD attentionMatrix(int n, int d, uint64_t seed) {
  Rng rng(seed);
  MatD q(n, d), k(n, d);
  for (Eigen::Index i = 0; i < q.size(); ++i) q.data()[i] = rng.normal(), k.data()[i] = rng.normal();
  MatD s = q * k.transpose() / std::sqrt(static_cast<double>(d));
  for (int i = 0; i < n; ++i) {
    s.row(i).array() -= s.row(i).maxCoeff();
    s.row(i) = s.row(i).array().exp().matrix();
    s.row(i) /= s.row(i).sum();
  }
  return s;
}

std::vector<std::complex<double>> byMagnitude(std::vector<std::complex<double>> v) {
  std::sort(v.begin(), v.end(), [](auto a, auto b) {
    return std::abs(a) != std::abs(b) ? std::abs(a) > std::abs(b) : a.imag() > b.imag();
  });
  return v;
}

}  // namespace

class TestLapackSpectrum : public QObject {
  Q_OBJECT

 private slots:
  void thisBuildHasLapack() {
    // scripts/test installs liblapack-dev; a build without it falls back to Eigen (slower, same numbers).
    QVERIFY(lapackAvailable());
  }

  void singularValuesMatchEigen() {
    for (auto [rows, cols] : {std::pair{64, 64}, {200, 200}, {60, 90}, {130, 50}}) {
      Rng rng(static_cast<uint64_t>(rows * 1000 + cols));
      MatD m = rows == cols ? attentionMatrix(rows, 16, 3) : MatD(rows, cols);
      if (rows != cols)
        for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal();
      const auto fast = lapackSingularValues(m);
      QVERIFY(fast.has_value());
      const VecD ref = eigenSingularValues(m);  // Eigen's BDCSVD
      QCOMPARE(fast->size(), ref.size());
      const double err = (*fast - ref).cwiseAbs().maxCoeff() / ref(0);
      QVERIFY2(err < 1e-12, qPrintable(QString("%1x%2: max error %3").arg(rows).arg(cols).arg(err)));
      for (Eigen::Index i = 1; i < fast->size(); ++i) QVERIFY((*fast)(i) <= (*fast)(i - 1));  // descending
    }
  }

  void eigenvaluesMatchEigen() {
    for (int n : {48, 100, 160, 300}) {  // 160 and 300: with the tuned shift sizes (lapack_tuning.h)
      const MatD a = attentionMatrix(n, 16, static_cast<uint64_t>(n));
      const auto fast = lapackEigenvalues(a);
      QVERIFY(fast.has_value());
      std::vector<std::complex<double>> ev;
      QVERIFY(eigenEigenvalues(a, ev));  // Eigen's EigenSolver
      const auto x = byMagnitude(*fast), y = byMagnitude(ev);
      QCOMPARE(x.size(), y.size());
      // Magnitudes agree closely; the eigenvalue 1 of a row-stochastic matrix to 1e-12.
      for (std::size_t i = 0; i < x.size(); ++i)
        QVERIFY2(std::abs(std::abs(x[i]) - std::abs(y[i])) < 1e-9, qPrintable(QString::number(i)));
      QVERIFY(std::abs(x[0] - std::complex<double>(1.0, 0.0)) < 1e-12);
      // The program's own entry point takes this path at these sizes and reports radius 1.
      QVERIFY(std::abs(spectralRadius(eigenvalues(a)) - 1.0) < 1e-12);
    }
  }

  void shiftTuningReachesLapack() {
    // core/compute/lapack_tuning.cpp's IPARMQ replaces the library's: LAPACK's own ILAENV answers with it.
    QVERIFY(lapackAedTuningActive());
    setLapackAedTuning(false);
    QVERIFY(!lapackAedTuningActive());
    setLapackAedTuning(true);
    QVERIFY(lapackAedTuningActive());
  }

  void tunedSizesAreValidForLapack() {
    QCOMPARE(tunedAedSizes(100).shifts, 0);  // LAPACK's own below 150 rows
    for (int nh : {150, 256, 589, 590, 1024, 4096, 20000}) {
      const AedSizes s = tunedAedSizes(nh);
      QVERIFY(s.shifts >= 2 && s.shifts % 2 == 0);  // shifts come in complex-conjugate pairs
      QVERIFY(s.window >= s.shifts);                // the window supplies the shifts
      QVERIFY(s.window < 75);                       // its Schur form by the double-shift code (NMIN)
    }
  }

  void tunedAndLibrarySizesGiveTheSameEigenvalues() {
    // The sizes steer convergence only: both settings agree to rounding, in both size ranges, on an
    // attention matrix and on a Gaussian one (complex pairs).
    for (int n : {200, 600}) {
      Rng rng(static_cast<uint64_t>(n));
      MatD gaussian(n, n);
      for (Eigen::Index i = 0; i < gaussian.size(); ++i) gaussian.data()[i] = rng.normal();
      for (const MatD& a : {attentionMatrix(n, 16, 21), gaussian}) {
        const auto tuned = byMagnitude(*lapackEigenvalues(a));
        setLapackAedTuning(false);
        const auto library = byMagnitude(*lapackEigenvalues(a));
        setLapackAedTuning(true);
        QCOMPARE(tuned.size(), library.size());
        const double radius = std::abs(tuned.front());
        for (std::size_t i = 0; i < tuned.size(); ++i)
          QVERIFY2(std::abs(std::abs(tuned[i]) - std::abs(library[i])) < 1e-10 * radius,
                   qPrintable(QString("n=%1, i=%2").arg(n).arg(i)));
        double imagTuned = 0, imagLibrary = 0;  // the same number of complex pairs, the same spread
        for (std::size_t i = 0; i < tuned.size(); ++i)
          imagTuned += std::abs(tuned[i].imag()), imagLibrary += std::abs(library[i].imag());
        QVERIFY(std::abs(imagTuned - imagLibrary) < 1e-8 * radius * static_cast<double>(n));
      }
    }
  }

  void eigenvaluesReportTheirStepsAndCanBeCancelled() {
    const MatD a = attentionMatrix(200, 16, 31);
    std::vector<double> fractions;
    RunControl control;
    control.progress = [&fractions](double f) { fractions.push_back(f); };
    const auto ev = lapackEigenvalues(a, control);
    QVERIFY(ev.has_value());
    QCOMPARE(fractions, (std::vector<double>{0.0, 0.05, 0.4}));  // start, balanced, Hessenberg form
    // The same numbers as without a control.
    QVERIFY(byMagnitude(*ev) == byMagnitude(*lapackEigenvalues(a)));
    // A raised cancel flag stops the work at the next step.
    std::atomic<bool> cancel{false};
    RunControl cancelling;
    cancelling.cancel = &cancel;
    cancelling.progress = [&cancel](double f) {
      if (f >= 0.05) cancel.store(true);
    };
    QVERIFY_THROWS_EXCEPTION(Cancelled, lapackEigenvalues(a, cancelling));
  }

  void tinyAndHugeMatricesAreScaledLikeDgeev() {
    // Entries around 1e-200 or 1e+200 would under- or overflow inside the iteration; the eigenvalues
    // scale exactly with the matrix.
    const MatD a = attentionMatrix(80, 16, 32);
    const auto reference = byMagnitude(*lapackEigenvalues(a));
    for (double factor : {1e-200, 1e200}) {
      const auto scaled = byMagnitude(*lapackEigenvalues(MatD(a * factor)));
      QCOMPARE(scaled.size(), reference.size());
      for (std::size_t i = 0; i < scaled.size(); ++i)
        QVERIFY2(std::abs(scaled[i] / factor - reference[i]) < 1e-12, qPrintable(QString::number(i)));
    }
  }

  void nonFiniteInputFallsBackToEigen() {
    MatD a = attentionMatrix(64, 16, 9);
    a(3, 5) = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(!lapackSingularValues(a).has_value());  // reference LAPACK would stop the program on NaN
    QVERIFY(!lapackEigenvalues(a).has_value());
  }

  void triangularMatricesGiveTheirDiagonal() {
    // A causal attention matrix (exact zeros above the diagonal), its transpose (upper triangular), and
    // the same matrix with one entry above the diagonal set, which must take the general path.
    MatD causal = attentionMatrix(120, 16, 11);
    for (Eigen::Index i = 0; i < causal.rows(); ++i) {
      causal.row(i).tail(causal.cols() - i - 1).setZero();
      causal.row(i) /= causal.row(i).sum();
    }
    for (const MatD& t : {causal, MatD(causal.transpose())}) {
      const auto shortcut = byMagnitude(eigenvalues(t));
      const auto qr = byMagnitude(*lapackEigenvalues(t));
      QCOMPARE(shortcut.size(), qr.size());
      for (std::size_t i = 0; i < qr.size(); ++i)
        QVERIFY2(std::abs(shortcut[i] - qr[i]) < 1e-12, qPrintable(QString::number(i)));
      for (const auto& z : shortcut) QCOMPARE(z.imag(), 0.0);
    }
    // Row 0 of a causal matrix is (1, 0, …): its eigenvalue 1 is exact.
    QCOMPARE(spectralRadius(eigenvalues(causal)), 1.0);
    MatD almost = causal;
    almost(0, 1) = 0.5;
    const auto general = byMagnitude(eigenvalues(almost)), qr = byMagnitude(*lapackEigenvalues(almost));
    for (std::size_t i = 0; i < qr.size(); ++i) QVERIFY(std::abs(general[i] - qr[i]) < 1e-9);
    QVERIFY(std::abs(general[0] - std::complex<double>(almost(0, 0), 0.0)) > 1e-6);  // not the diagonal
  }

  void spectrumOnTwoThreadsEqualsOneByOne() {
    const MatD a = attentionMatrix(static_cast<int>(kParallelSpectrumSize) + 4, 16, 12);  // the two-thread path
    const Spectrum s = computeSpectrum(a, true);
    QVERIFY(s.singularValues == singularValues(a));
    QVERIFY(s.eigenvalues == eigenvalues(a));
    QCOMPARE(s.numericalRank, numericalRank(a));
  }

  void rankOneStaysRankOne() {
    Rng rng(5);
    VecD x(100);
    for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = rng.normal();
    const MatD outer = x * x.transpose();
    QCOMPARE(numericalRank(outer), 1);  // through singularValues → LAPACK (100 ≥ kLapackMinSize)
    QVERIFY(std::abs(singularValues(outer)(0) - x.squaredNorm()) < 1e-9 * x.squaredNorm());
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestLapackSpectrum)
#include "test_lapack_spectrum.moc"
