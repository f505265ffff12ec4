// The Training view's encoder–decoder page (issue 33) as a class uses it (offscreen): choose reversal, press Train,
// and the cross-attention of the probe turns into the anti-diagonal while the held-out accuracy climbs; the drawn
// maps are the network's own forward; Pause stops, bad settings (a learning rate that is not a number, a zero step
// limit, sources longer than the positions) give messages; "Use in views" opens the trained model in the window as
// an encoder–decoder. Steps are bounded, never timed; waits are QTRY on visible outcomes.
#include <QClipboard>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QtTest>
#include <cmath>

#include "core/run/encdec_run.h"
#include "core/train/encdec_probe.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/attention_grid.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/view_actions.h"
#include "ui/shell/view_navigator.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/training/encdec_training_panel.h"
#include "ui/views/training/training_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

int step(const EncDecTrainingPanel& p) { return p.lastUpdate() ? p.lastUpdate()->snapshot.step : -1; }

/// The anti-diagonal score written out: target row i (its decoder input is </s> then the answer) should read source
/// column n − 1 − i, for i < n, the probe being n distinct symbols + </s>.
double antiDiagonal(const Eigen::MatrixXf& m) {
  const int n = static_cast<int>(m.cols()) - 1;
  double s = 0;
  for (int i = 0; i < n; ++i) s += m(i, n - 1 - i);
  return s / n;
}

double bestAntiDiagonal(const std::vector<std::vector<Eigen::MatrixXf>>& maps) {
  double best = 0;
  for (const auto& layer : maps)
    for (const Eigen::MatrixXf& m : layer) best = std::max(best, antiDiagonal(m));
  return best;
}

}  // namespace

class TestEncDecTraining : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void reversalTurnsTheCrossMapAntiDiagonal() {
    EncDecTrainingPanel v;
    v.resize(1100, 650);
    v.show();
    QTRY_COMPARE(step(v), 0);
    QCOMPARE(v.taskBox()->currentText(), QString("reverse"));
    QCOMPARE(v.grid()->layers(), 1);  // one decoder layer, two heads
    QCOMPARE(v.headBox()->count(), 2);
    const auto untrained = v.lastUpdate();
    const double before = bestAntiDiagonal(v.drawnCross());
    const double accBefore = untrained->snapshot.heldOut.accuracy;

    v.stepsBox()->setValue(400);
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);
    QCOMPARE(v.trainButton()->text(), QString("Pause"));
    QTRY_COMPARE_WITH_TIMEOUT(step(v), 400, 120000);  // stops by itself at the limit
    QTRY_COMPARE(v.trainButton()->text(), QString("Train"));
    QCOMPARE(v.lossPoints(), 400);
    const auto trained = v.lastUpdate();
    const double after = bestAntiDiagonal(v.drawnCross());
    const double accAfter = trained->snapshot.heldOut.accuracy;
    qInfo("anti-diagonal (best head) %.3f -> %.3f; held-out accuracy %.3f -> %.3f", before, after, accBefore, accAfter);
    // Uniform attention over the 11 source tokens puts 1/11 = 0.09 on each; the untrained net is near that.
    QVERIFY(before < 0.2);
    QVERIFY(after > 0.7);  // measured 0.909 on one thread
    QVERIFY(after > before + 0.3);
    QVERIFY(accAfter > 0.8);  // measured 0.923 (0.040 untrained)
    QVERIFY(v.status()->text().contains("step 400"));
    QVERIFY(v.headline()->text().contains("anti-diagonal") || v.headline()->text().contains("not aligned"));

    // The drawn maps are the network's forward on the probe, recomputed here from the published weights.
    const TinyEncDecConfig& c = trained->settings.model;
    std::vector<int> source, target{kEncDecEos};
    for (int i = 0; i < c.maxLength; ++i) source.push_back(kEncDecFirstSymbol + i);  // "a b … j"
    source.push_back(kEncDecEos);
    for (int i = c.maxLength - 1; i >= 0; --i) target.push_back(kEncDecFirstSymbol + i);  // "j i … a"
    const int n = static_cast<int>(source.size());
    TinyEncDecForward<double> f;
    tinyEncDecForward(c, trained->params->cast<double>(), source.data(), target.data(), 1, n, n, f);
    QCOMPARE(static_cast<int>(v.drawnCross().size()), c.decoderLayers);
    for (int l = 0; l < c.decoderLayers; ++l)
      for (int h = 0; h < c.heads; ++h) {
        const Eigen::MatrixXd drawn = v.drawnCross()[l][h].cast<double>();
        const Eigen::MatrixXd& ref =
            f.decoder[static_cast<std::size_t>(l)].cross.attention[static_cast<std::size_t>(h)];
        QCOMPARE(drawn.rows(), Eigen::Index(n));
        QVERIFY2((drawn - ref).cwiseAbs().maxCoeff() < 1e-6,
                 qPrintable(QString::number((drawn - ref).cwiseAbs().maxCoeff())));
        // and the score in the title is the anti-diagonal's mean
        QVERIFY(std::abs(trained->snapshot.alignment[l][h] - antiDiagonal(v.drawnCross()[l][h])) < 1e-9);
      }

    // Selecting the other head frames it and the headline names it.
    v.headBox()->setCurrentIndex(1);
    QCOMPARE(v.selectedHead(), std::make_pair(0, 1));
    QVERIFY(v.headline()->text().contains("L0 H1") || v.headline()->text().contains("L0H1"));
  }

  void pauseStopsAndBadSettingsSaySo() {
    EncDecTrainingPanel v;
    v.show();
    QTRY_COMPARE(step(v), 0);
    v.stepsBox()->setValue(1000000);
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);
    QTRY_VERIFY(step(v) > 0);
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);  // Pause
    QTRY_COMPARE(v.trainButton()->text(), QString("Train"));
    // The pause's own update (the weights of the last step) has arrived: nothing after it.
    QTRY_VERIFY(v.lastUpdate()->commandGeneration == v.worker()->commandGeneration() && !v.lastUpdate()->running);
    const int stopped = step(v);
    QTest::qWait(300);
    QCOMPARE(step(v), stopped);

    v.worker()->train(0);  // a zero step limit (the box's minimum is 1; the worker refuses it too)
    QTRY_VERIFY(v.status()->text().contains("at least 1"));
    QCOMPARE(step(v), stopped);

    EncDecTrainSettings s = v.settings();
    s.adam.lr = std::nan("");
    v.worker()->reset(s);
    QTRY_VERIFY(v.status()->text().contains("learning rate must be a number"));
    QTRY_VERIFY(!v.trainButton()->isEnabled());  // nothing to train until the settings change
    QVERIFY(!v.useButton()->isEnabled());

    s = v.settings();
    s.model.maxLength = 100;  // longer than the positions the page allows
    v.worker()->reset(s);
    QTRY_VERIFY(v.status()->text().contains("the longest source must be between 2 and 64 (got 100)"));

    v.seedBox()->setValue(5);  // a good setting brings a fresh model back
    QTRY_COMPARE(step(v), 0);
    QTRY_VERIFY(v.trainButton()->isEnabled());
  }

  void useInViewsOpensTheTrainedEncoderDecoder() {
    MainWindow w(false);
    w.show();
    TrainingView* t = w.trainingView();
    QVERIFY(t);
    t->tabs()->setCurrentWidget(t->encDecPanel());
    EncDecTrainingPanel* p = t->encDecPanel();
    QTRY_COMPARE(step(*p), 0);
    p->stepsBox()->setValue(20);
    QTest::mouseClick(p->trainButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(step(*p), 20, 60000);
    // Copy image copies this tab as shown (at twice its size), not the one-text tab's run.
    w.showView("training");
    QVERIFY(t->showsEncDec());
    QApplication::clipboard()->clear();
    w.viewActions()->copyTrainingImage(t);
    const QImage copied = QApplication::clipboard()->image();
    QCOMPARE(copied.size(), p->size() * 2);
    QTest::mouseClick(p->useButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(w.controller()->lastResult() && w.controller()->lastResult()->ok() &&
                                 w.controller()->lastResult()->params.modelDir.find(
                                     "trained/reverse-encdec-E1D1H2-step20") != std::string::npos,
                             30000);
    const auto& r = *w.controller()->lastResult();
    QVERIFY(encDecRunOf(r));                               // opened as an encoder–decoder: source and target
    QCOMPARE(w.navigator()->current(), QString("cross"));  // showing what the tab showed: cross-attention
    QCOMPARE(r.trace().layerCount(), 1);
  }
};

ATTNLAB_TEST_MAIN(TestEncDecTraining)
#include "test_encdec_training.moc"
