// libgomp's spin set by the program at start-up (core/compute/omp_wait_policy.h): the decision for a user who set
// OMP_WAIT_POLICY or GOMP_SPINCOUNT (left alone, empty values counting as unset), the spin count as 1 ms of pause
// instructions at a given cost, hand-computed, and its bounds (never longer than libgomp's own 300,000, at least
// 100; an unknown cost taken as libgomp's 10 ns). Then this very test program: it links core/compute, so the
// start-up hook ran before main and restarted it with GOMP_SPINCOUNT in its environment, which is what libgomp
// read.
#include <QProcess>
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "core/compute/omp_wait_policy.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestOmpWaitPolicy : public QObject {
  Q_OBJECT

 private slots:
  void userSettingsAreLeftAlone() {
    for (const char* policy : {"passive", "active", "PASSIVE"}) QVERIFY(decideOmpWait(policy, nullptr, 13.0).userSet);
    QVERIFY(decideOmpWait(nullptr, "300000", 13.0).userSet);
    QVERIFY(decideOmpWait("active", "0", 13.0).userSet);
    // Empty values are unset, as for libgomp (which ignores them).
    const OmpWaitChoice empty = decideOmpWait("", "", 13.0);
    QVERIFY(!empty.userSet);
    QCOMPARE(empty.spinCount, 76923LL);
  }

  void spinCountIsOneMillisecondOfPauses() {
    QCOMPARE(kOmpSpinMicros, 1000.0);
    QCOMPARE(decideOmpWait(nullptr, nullptr, 13.0).spinCount, 76923LL);  // 1,000,000 / 13 = 76923.08
    QCOMPARE(decideOmpWait(nullptr, nullptr, 12.5).spinCount, 80000LL);
    QCOMPARE(decideOmpWait(nullptr, nullptr, 140.0).spinCount, 7143LL);  // 7142.86
    QCOMPARE(decideOmpWait(nullptr, nullptr, 20.0, 100.0).spinCount, 5000LL);
    QVERIFY(!decideOmpWait(nullptr, nullptr, 13.0).userSet);
  }

  void spinCountIsBounded() {
    // A pause measured far too fast never makes the spin longer than libgomp's default.
    QCOMPARE(decideOmpWait(nullptr, nullptr, 0.01).spinCount, kLibgompDefaultSpinCount);
    QCOMPARE(decideOmpWait(nullptr, nullptr, 1e6).spinCount, 100LL);  // 1 pause a ms: at least 100
    // Unknown cost (no x86 pause, a failed clock: not finite or ≤ 0): libgomp's own 10 ns, 1 ms → 100,000.
    QCOMPARE(decideOmpWait(nullptr, nullptr, 0.0).spinCount, 100000LL);
    QCOMPARE(decideOmpWait(nullptr, nullptr, -3.0).spinCount, 100000LL);
    QCOMPARE(decideOmpWait(nullptr, nullptr, std::numeric_limits<double>::quiet_NaN()).spinCount, 100000LL);
    QCOMPARE(decideOmpWait(nullptr, nullptr, std::numeric_limits<double>::infinity()).spinCount, 100000LL);
  }

  void thisProgramStartedWithTheSpin() {
    const std::string applied = ompWaitPolicyApplied();
    QVERIFY2(!applied.empty(), "the start-up hook did not run");
    const char* policy = std::getenv("OMP_WAIT_POLICY");
    const char* spin = std::getenv("GOMP_SPINCOUNT");
    const char* mark = std::getenv("ATTNLAB_OMP_SPIN");
    if (applied.find("set by the user") != std::string::npos) {
      QVERIFY((policy && *policy) || (spin && *spin));  // the user's choice, reported as such
      return;
    }
    // Restarted by the hook: GOMP_SPINCOUNT is in the environment libgomp read, within the bounds, named by
    // the mark and by the report.
    QVERIFY2(spin && mark, applied.c_str());
    const long long count = std::atoll(spin);
    QVERIFY(count >= 100 && count <= kLibgompDefaultSpinCount);
    QCOMPARE(std::string(mark).substr(0, std::strlen(spin) + 1), std::string(spin) + ":");
    QCOMPARE(applied, "GOMP_SPINCOUNT=" + std::string(mark) + " set by the program");
  }

  void anEmptySpinCountRestartsOnce() {
    // GOMP_SPINCOUNT= (empty) reads as unset: the program restarts with its own count, once. It restarted without
    // end before (the empty entry came first again in every round), each round adding an entry.
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("ATTNLAB_OMP_SPIN");
    env.remove("OMP_WAIT_POLICY");
    env.insert("GOMP_SPINCOUNT", "");
    p.setProcessEnvironment(env);
    p.start(ATTNLAB_APP_BINARY, {"--version"});
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(p.readAllStandardOutput().startsWith("attnlab "));
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestOmpWaitPolicy)
#include "test_omp_wait_policy.moc"
