// The Training view as a class uses it (offscreen): press Train and see the loss curve, the heatmaps of
// every head and the scores move; pause, single steps, a live learning-rate change, reset on a new seed,
// a refused setting as a message; "Use in views" opens the trained model in the window's other views;
// and the shipped induction model shows its two heads on typed text. Waits are QTRY on visible outcomes.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "core/run/model_factory.h"
#include "core/train/shipped_models.h"
#include "core/train/tiny_model.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/attention_grid.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/views/training/training_view.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestTrainingView : public QObject {
  Q_OBJECT

  int step(const TrainingView& v) { return v.lastUpdate() ? v.lastUpdate()->snapshot.step : -1; }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void trainPauseStepReset() {
    TrainingView v;
    v.resize(1100, 750);
    v.show();
    QTRY_COMPARE(step(v), 0);  // the fresh model's snapshot: heatmaps before any training
    QCOMPARE(v.grid()->layers(), 2);
    QCOMPARE(v.table()->rowCount(), 8);
    v.stepsBox()->setValue(60);
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);
    QCOMPARE(v.trainButton()->text(), QString("Pause"));
    QTRY_COMPARE_WITH_TIMEOUT(step(v), 60, 30000);  // stops by itself at the step limit
    QTRY_COMPARE(v.trainButton()->text(), QString("Train"));
    QCOMPARE(v.lossPoints(), 60);
    QVERIFY(v.status()->text().contains("step 60"));
    QVERIFY(v.headline()->text().contains("induction head"));
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);  // Train at the limit: stops at once, says so
    QTRY_COMPARE(v.trainButton()->text(), QString("Train"));
    QCOMPARE(step(v), 60);
    QTest::mouseClick(v.stepButton(), Qt::LeftButton);  // one more step by hand is still allowed
    QTRY_COMPARE(step(v), 61);
    v.lrBox()->setValue(0.001);
    QTRY_COMPARE(v.lastUpdate()->settings.adam.lr, 0.001);  // live change, no reset
    QCOMPARE(step(v), 61);
    v.seedBox()->setValue(9);  // a new seed: a new model from step 0
    QTRY_COMPARE(step(v), 0);
    QTRY_COMPARE(v.lossPoints(), 0);
    v.layersBox()->setValue(1);
    QTRY_COMPARE(v.grid()->layers(), 1);
  }

  // Pause then Train pressed quickly: the pause's own snapshot arrives after Train and must not turn
  // the button back to "Train" while the worker trains; the worker's answer to the latest command does.
  void lateUpdateOfAnOlderCommandKeepsTheLabel() {
    TrainingView v;
    v.show();
    QTRY_COMPARE(step(v), 0);
    v.stepsBox()->setValue(100000);
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);
    const int beforeLast = v.worker()->commandGeneration();
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);  // Pause
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);  // Train again, at once
    QCOMPARE(v.trainButton()->text(), QString("Pause"));
    auto late = std::make_shared<TrainingUpdate>(*v.lastUpdate());
    late->running = false;
    late->reset = false;
    late->losses.clear();
    late->commandGeneration = beforeLast + 1;  // published while the Pause was the latest command
    emit v.worker()->updated(late);
    QCoreApplication::processEvents();
    QCOMPARE(v.trainButton()->text(), QString("Pause"));
    QVERIFY(v.worker()->running());
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);  // a real pause is shown as one
    QTRY_COMPARE(v.trainButton()->text(), QString("Train"));
  }

  void refusedSettingsAreAMessage() {
    TrainingView v;
    v.show();
    QTRY_COMPARE(step(v), 0);
    v.taskBox()->setCurrentText("recall");
    QTRY_COMPARE(v.lastUpdate()->settings.task, TrainTask::Recall);
    // d_model 16 with 8 heads is fine; heads 3 with d 64 is not: the view says so and keeps its model.
    v.headsBox()->setValue(3);
    QTRY_VERIFY(v.status()->text().contains("divisible"));
    QVERIFY(!v.trainButton()->isEnabled());  // it would train the old model under the new controls
    v.headsBox()->setValue(4);
    QTRY_VERIFY(v.trainButton()->isEnabled());
  }

  void useInViewsOpensTheTrainedModel() {
    MainWindow w(false);
    w.show();
    TrainingView* t = w.trainingView();
    QVERIFY(t);
    QTRY_COMPARE(step(*t), 0);
    t->stepsBox()->setValue(20);
    QTest::mouseClick(t->trainButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(step(*t), 20, 30000);
    QTest::mouseClick(t->useButton(), Qt::LeftButton);
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok() &&
                w.controller()->lastResult()->params.modelDir.find("trained/induction-L2H4-step20") !=
                    std::string::npos);
    const Trace& trace = w.controller()->lastResult()->trace();
    QCOMPARE(trace.tokens.front(), std::string("<bos>"));
    QCOMPARE(trace.layerCount(), 2);
  }

  void shippedInductionModelHasItsHeads() {
    Params p;
    p.modelDir = kShippedInductionModel;
    const auto m = makeModel(p);
    const std::string text = "the cat sat on the mat . the cat sat on the mat";
    const Trace t = m->forward(m->tokenize(text));
    QCOMPARE(t.tokenCount(), 14);  // BOS + 13 words; the period is 7 ("the cat sat on the mat .")
    // Previous-token head in layer 0, induction head in layer 1, measured on the second copy (positions
    // 8 … 13 repeat 1 … 6): the attention to i − 1, and to i − 7 + 1 (the word after the last occurrence).
    double bestPrev = 0, bestInd = 0;
    for (int h = 0; h < t.headCount(); ++h) {
      double prev = 0, ind = 0;
      for (int i = 8; i < 14; ++i) {
        prev += t.layers[0].heads[h].attention(i, i - 1) / 6.0;
        ind += t.layers[1].heads[h].attention(i, i - 6) / 6.0;
      }
      bestPrev = std::max(bestPrev, prev);
      bestInd = std::max(bestInd, ind);
    }
    qInfo("shipped model on typed text: previous-token %.2f, induction %.2f", bestPrev, bestInd);
    QVERIFY2(bestPrev > 0.8, qPrintable(QString::number(bestPrev)));
    QVERIFY2(bestInd > 0.6, qPrintable(QString::number(bestInd)));
  }
};

ATTNLAB_TEST_MAIN(TestTrainingView)
#include "test_training_view.moc"
