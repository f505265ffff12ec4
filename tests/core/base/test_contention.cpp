// The meter that runs the forward's parallel regions on one thread while the cores are busy
// (core/base/contention.h), fed fake readings: the smoothing by hand (fraction += (1 − e^(−dt/τ))·(w − fraction),
// τ = 100 ms), the 10 ms window, the hysteresis between 25 % and 10 %, the clamping of odd readings; then the
// kernel's reading for this thread, which only grows.
#include <QtTest>

#include <omp.h>

#include <cmath>

#include "core/base/contention.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestContention : public QObject {
  Q_OBJECT

 private slots:
  void firstReadingIsABaseline() {
    ContentionMeter m;
    QVERIFY(!m.update(100.0, 50.0));  // however much waited before: not measured here
    QCOMPARE(m.waitFraction(), 0.0);
  }

  void readingsInsideTheWindowAreSkipped() {
    ContentionMeter m;
    m.update(0.0, 0.0);
    QVERIFY(!m.update(0.009, 0.009));  // 9 ms, all of it waiting: too short to count
    QCOMPARE(m.waitFraction(), 0.0);
    // The skipped reading is not the new baseline: 10 ms from the first, 1/3 of it waiting.
    m.update(0.010, 0.010 / 3);
    QVERIFY(std::abs(m.waitFraction() - (1 - std::exp(-0.1)) / 3) < 1e-12);  // 0.031721
    QVERIFY(!m.contended());
  }

  void oneThreadBesideABusyLoopPerCoreIsBusyUntilTheLoopsStop() {
    ContentionMeter m;
    m.update(0.0, 0.0);
    // 200 ms with a third spent waiting (3 runnable threads on 2 cores): 0.3333·(1 − e^−2) = 0.288222.
    QVERIFY(m.update(0.200, 0.200 / 3));
    QVERIFY(std::abs(m.waitFraction() - 0.288222) < 1e-6);
    // The loops stop: 50 ms without waiting gives 0.288222·e^−0.5 = 0.174815, still above 10 %: busy.
    QVERIFY(m.update(0.250, 0.200 / 3));
    QVERIFY(std::abs(m.waitFraction() - 0.174815) < 1e-6);
    // 100 ms more: 0.174815·e^−1 = 0.064311, under 10 %: all threads again.
    QVERIFY(!m.update(0.350, 0.200 / 3));
    QVERIFY(std::abs(m.waitFraction() - 0.064311) < 1e-6);
  }

  void hysteresis() {
    ContentionMeter m;
    m.update(0.0, 0.0);
    QVERIFY(!m.update(1.0, 0.20));  // a long window (1 − e^−10 ≈ 1): 20 %, under 25 %: stays quiet
    QVERIFY(std::abs(m.waitFraction() - 0.20) < 1e-4);
    QVERIFY(m.update(2.0, 0.50));   // 30 %: busy
    QVERIFY(m.update(3.0, 0.65));   // back to 15 %: above 10 %, stays busy
    QVERIFY(!m.update(4.0, 0.70));  // 5 %: quiet
  }

  void oddReadingsAreClamped() {
    ContentionMeter m;
    m.update(0.0, 5.0);
    m.update(1.0, 4.0);  // waiting went down (another thread's reading): counts as 0
    QVERIFY(std::abs(m.waitFraction()) < 1e-12);
    m.update(2.0, 9.0);  // 5 s waited in 1 s: counts as all of it
    QVERIFY(std::abs(m.waitFraction() - (1 - std::exp(-10.0))) < 1e-12);
    QVERIFY(m.contended());
    m.update(1.5, 99.0);  // the clock went back: skipped
    QVERIFY(std::abs(m.waitFraction() - (1 - std::exp(-10.0))) < 1e-12);
  }

  void kernelReadingOfThisThread() {
    const double a = threadWaitedSeconds();
    if (a < 0) QSKIP("no /proc/thread-self/schedstat here: the meter stays quiet, all threads are used");
    volatile double x = 0;
    for (int i = 0; i < 1000000; ++i) x = x + 1;
    const double b = threadWaitedSeconds();
    QVERIFY(b >= a);
    // One OpenMP thread asked for: one, whatever the meter says.
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);
    QCOMPARE(availableThreads(), 1);
    omp_set_num_threads(before);
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestContention)
#include "test_contention.moc"
