// The worker loop both Training pages share (trainer_thread.h) and the "Use in views" folder rule
// (trained_model_folder.h), driven directly: a step limit below 1 is refused with a message by either worker and
// trains nothing; the encoder–decoder's trainer, which has no live learning rate, answers a new rate with a message;
// a refused reset keeps the one-text worker's old model (the view keeps drawing it) but leaves the encoder–decoder's
// none; single steps count exactly; "Use in views" folders are AppData/trained/<stem>-<date>-<time>-<ms>.
#include <QDir>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>
#include <cmath>

#include "tests/harness/test_registry.h"
#include "ui/views/training/encdec_training_worker.h"
#include "ui/views/training/trained_model_folder.h"
#include "ui/views/training/training_worker.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// Collects a worker's updates on this thread (they arrive queued).
template <class Worker, class UpdatePtr>
struct Updates {
  std::vector<UpdatePtr> all;
  explicit Updates(Worker& w) {
    QObject::connect(&w, &Worker::updated, &w, [this](const UpdatePtr& u) { all.push_back(u); });
  }
  const UpdatePtr& last() const { return all.back(); }
};

TrainSettings smallOneText() {
  TrainSettings s;
  s.model.layers = 1;
  s.model.heads = 1;
  s.model.dModel = 16;
  s.threads = 1;
  return s;
}

EncDecTrainSettings smallEncDec() {
  EncDecTrainSettings s;
  s.threads = 1;
  return s;
}

}  // namespace

class TestTrainerThread : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void aStepLimitBelowOneIsRefusedByBothWorkers() {
    TrainingWorker one;
    Updates<TrainingWorker, TrainingUpdatePtr> a(one);
    one.reset(smallOneText());
    QTRY_COMPARE(a.all.size(), std::size_t(1));
    one.train(0);
    QTRY_COMPARE(a.all.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(a.last()->error), QString("the step to stop at must be at least 1 (got 0)"));
    QCOMPARE(a.last()->snapshot.step, 0);
    QVERIFY(!one.running());

    EncDecTrainingWorker two;
    Updates<EncDecTrainingWorker, EncDecTrainingUpdatePtr> b(two);
    two.reset(smallEncDec());
    QTRY_COMPARE(b.all.size(), std::size_t(1));
    two.train(-3);
    QTRY_COMPARE(b.all.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(b.last()->error), QString("the step to stop at must be at least 1 (got -3)"));
    QCOMPARE(b.last()->snapshot.step, 0);
  }

  void singleStepsCountAndTheRateIsLiveOnlyWhereTheTrainerHasOne() {
    TrainingWorker one;
    Updates<TrainingWorker, TrainingUpdatePtr> a(one);
    one.reset(smallOneText());
    QTRY_COMPARE(a.all.size(), std::size_t(1));
    for (int i = 0; i < 3; ++i) one.stepOnce();
    QTRY_COMPARE(a.all.size(), std::size_t(4));  // a step while paused publishes at once (it stops there)
    QCOMPARE(a.last()->snapshot.step, 3);
    int losses = 0;
    for (const auto& u : a.all) losses += static_cast<int>(u->losses.size());
    QCOMPARE(losses, 3);
    one.setLearningRate(0.002);
    QTRY_COMPARE(a.last()->settings.adam.lr, 0.002);
    QVERIFY(a.last()->error.empty());

    EncDecTrainingWorker two;
    Updates<EncDecTrainingWorker, EncDecTrainingUpdatePtr> b(two);
    two.reset(smallEncDec());
    QTRY_COMPARE(b.all.size(), std::size_t(1));
    const double lr = b.last()->settings.adam.lr;
    two.setLearningRate(lr * 2);
    QTRY_COMPARE(b.all.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(b.last()->error),
             QString("this trainer takes a new learning rate only with a reset"));
    QCOMPARE(b.last()->settings.adam.lr, lr);
  }

  void aRefusedResetKeepsTheOneTextModelButNotTheEncoderDecoders() {
    TrainingWorker one;
    Updates<TrainingWorker, TrainingUpdatePtr> a(one);
    one.reset(smallOneText());
    QTRY_COMPARE(a.all.size(), std::size_t(1));
    TrainSettings bad = smallOneText();
    bad.adam.lr = std::nan("");
    one.reset(bad);
    QTRY_COMPARE(a.all.size(), std::size_t(2));
    QVERIFY(!a.last()->params && !a.last()->error.empty());
    one.stepOnce();  // the old model is still there: it steps
    QTRY_COMPARE(a.all.size(), std::size_t(3));
    QCOMPARE(a.last()->snapshot.step, 1);

    EncDecTrainingWorker two;
    Updates<EncDecTrainingWorker, EncDecTrainingUpdatePtr> b(two);
    two.reset(smallEncDec());
    QTRY_COMPARE(b.all.size(), std::size_t(1));
    EncDecTrainSettings badEd = smallEncDec();
    badEd.adam.lr = std::nan("");
    two.reset(badEd);
    QTRY_COMPARE(b.all.size(), std::size_t(2));
    QVERIFY(!b.last()->params);
    two.stepOnce();  // no model: nothing to step, nothing published
    two.train(10);
    QTest::qWait(200);
    QCOMPARE(b.all.size(), std::size_t(2));
    QVERIFY(!two.running());
  }

  void useInViewsFoldersAreNewDatedFoldersUnderAppData() {
    const QString dir = newTrainedModelFolder("reverse-encdec-E1D1H2-step20");
    const QString base = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/trained";
    QVERIFY(QDir(base).exists());
    QCOMPARE(QFileInfo(dir).path(), base);
    const QRegularExpression name("^reverse-encdec-E1D1H2-step20-\\d{8}-\\d{6}-\\d{3}$");
    QVERIFY2(name.match(QFileInfo(dir).fileName()).hasMatch(), qPrintable(dir));
    QVERIFY(!QFileInfo::exists(dir));  // named, not made: the save makes it
  }
};

ATTNLAB_TEST_MAIN(TestTrainerThread)
#include "test_trainer_thread.moc"
