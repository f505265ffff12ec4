// BackgroundJob's delivery rules (issue 31 review): cancel() is final — a run that had finished but whose
// result (or failure, or progress) was still waiting in the event queue delivers nothing — and busy() turns false at
// once; stopEarly() raises the flag only, so work that returns what it has when stopped is still delivered.
#include <QSignalSpy>
#include <QtTest>
#include <atomic>

#include "core/base/run_control.h"
#include "tests/harness/test_registry.h"
#include "ui/views/common/background_job.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// Lets every queued delivery arrive (the job posts twice: the future's continuation, then the delivery).
void drain() {
  for (int round = 0; round < 5; ++round) {
    QCoreApplication::processEvents();
    QTest::qWait(10);
  }
}

}  // namespace

class TestBackgroundJob : public QObject {
  Q_OBJECT
 private slots:
  void aFinishedRunCancelledBeforeDeliveryDeliversNothing() {
    BackgroundJob job;
    QSignalSpy busy(&job, &BackgroundJob::busyChanged);
    QSignalSpy progress(&job, &BackgroundJob::progress);
    int delivered = 0;
    job.run<int>(
        [](const RunControl& c) {
          c.progress(1.0);
          return 7;
        },
        [&delivered](const int& v) { delivered = v; });
    QVERIFY(job.busy());
    job.waitForIdle();  // the work is done; its result and progress wait in the event queue
    job.cancel();
    QVERIFY(!job.busy());
    drain();
    QCOMPARE(delivered, 0);
    QCOMPARE(progress.count(), 0);
    QCOMPARE(busy.count(), 2);  // true at run(), false at cancel(): nothing more when the dropped result arrives
    QCOMPARE(busy[0][0].toBool(), true);
    QCOMPARE(busy[1][0].toBool(), false);
  }

  void aFailedRunCancelledBeforeDeliveryReportsNothing() {
    BackgroundJob job;
    QString error;
    job.run<int>([](const RunControl&) -> int { throw std::runtime_error("singular matrix"); }, [](const int&) {},
                 [&error](const QString& e) { error = e; });
    job.waitForIdle();
    job.cancel();
    drain();
    QVERIFY(error.isEmpty());
    // Without the cancel the same failure arrives (the check above is not vacuous).
    job.run<int>([](const RunControl&) -> int { throw std::runtime_error("singular matrix"); }, [](const int&) {},
                 [&error](const QString& e) { error = e; });
    QTRY_COMPARE(error, QString("singular matrix"));
    QVERIFY(!job.busy());
  }

  void aRunAfterCancelIsDelivered() {
    BackgroundJob job;
    int delivered = 0;
    job.run<int>([](const RunControl&) { return 1; }, [&delivered](const int& v) { delivered = v; });
    job.cancel();
    job.run<int>([](const RunControl&) { return 2; }, [&delivered](const int& v) { delivered = v; });
    QVERIFY(job.busy());
    QTRY_COMPARE(delivered, 2);
    QVERIFY(!job.busy());
    drain();
    QCOMPARE(delivered, 2);  // the first run's result never overwrites it
  }

  void stopEarlyDeliversWhatTheWorkReturns() {
    // A corpus scan's way: the work checks the flag, stops, and returns what it has.
    BackgroundJob job;
    std::atomic<bool> started{false};
    int steps = -1;
    job.run<int>(
        [&started](const RunControl& c) {
          started = true;
          int n = 0;
          while (!c.cancel->load()) {
            ++n;
            QThread::msleep(1);
          }
          return n;
        },
        [&steps](const int& n) { steps = n; });
    QTRY_VERIFY(started.load());
    job.stopEarly();
    QVERIFY(job.busy());  // until the partial result is delivered
    QTRY_VERIFY(steps >= 0);
    QVERIFY(!job.busy());
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestBackgroundJob)
#include "test_background_job.moc"
