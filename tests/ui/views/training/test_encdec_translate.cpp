// The encoder–decoder tab's third task, translate (word by word from a–j into k–t by a fixed dictionary): the README
// and the trainer had it, the tab's task list did not. Chosen in the tab and trained for a bounded number of steps,
// the decoder's cross-attention on the probe ("a b … j" → its translation) turns into the diagonal, which the maps'
// titles and the headline name; the held-out accuracy climbs. Steps are bounded, never timed. With
// ATTNLAB_LAYOUT_SHOTS set, the trained tab is kept as a PNG.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>

#include "core/train/encdec_probe.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/figure_export.h"
#include "ui/views/training/encdec_training_panel.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

int step(const EncDecTrainingPanel& p) { return p.lastUpdate() ? p.lastUpdate()->snapshot.step : -1; }

/// The diagonal written out: target row i (decoder input </s>, then the answer) reads source column i, i < n, the
/// probe being n symbols + </s>.
double diagonal(const Eigen::MatrixXf& m) {
  const int n = static_cast<int>(m.cols()) - 1;
  double s = 0;
  for (int i = 0; i < n; ++i) s += m(i, i);
  return s / n;
}

double bestDiagonal(const std::vector<std::vector<Eigen::MatrixXf>>& maps) {
  double best = 0;
  for (const auto& layer : maps)
    for (const Eigen::MatrixXf& m : layer) best = std::max(best, diagonal(m));
  return best;
}

}  // namespace

class TestEncDecTranslate : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void translationTurnsTheCrossMapDiagonal() {
    EncDecTrainingPanel v;
    v.resize(1100, 650);
    v.show();
    QTRY_COMPARE(step(v), 0);
    const int index = v.taskBox()->findText("translate");
    QVERIFY(index >= 0);
    v.taskBox()->setCurrentIndex(index);  // a new task: a fresh model at step 0
    QTRY_VERIFY(v.lastUpdate() && v.lastUpdate()->settings.task == EncDecTask::Translate && step(v) == 0);
    const double before = bestDiagonal(v.drawnCross());
    const double accBefore = v.lastUpdate()->snapshot.heldOut.accuracy;

    v.stepsBox()->setValue(300);
    QTest::mouseClick(v.trainButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(step(v), 300, 120000);
    QTRY_COMPARE(v.trainButton()->text(), QString("Train"));
    const auto trained = v.lastUpdate();
    const double after = bestDiagonal(v.drawnCross());
    const double accAfter = trained->snapshot.heldOut.accuracy;
    qInfo("diagonal (best head) %.3f -> %.3f; held-out accuracy %.3f -> %.3f", before, after, accBefore, accAfter);
    QVERIFY(before < 0.3);  // uniform over the 11 source tokens: 0.09
    QVERIFY(after > 0.7);
    QVERIFY(accAfter > 0.9);
    // The scores in the snapshot are the drawn maps' diagonals, and the headline calls it the diagonal.
    const auto& a = trained->snapshot.alignment;
    for (std::size_t l = 0; l < a.size(); ++l)
      for (std::size_t h = 0; h < a[l].size(); ++h) QVERIFY(std::abs(a[l][h] - diagonal(v.drawnCross()[l][h])) < 1e-9);
    QVERIFY2(v.headline()->text().startsWith("translate, step 300: cross-attention"), qPrintable(v.headline()->text()));
    QVERIFY(v.headline()->text().contains("word by word (diagonal)") || v.headline()->text().contains("not aligned"));
    // With ATTNLAB_LAYOUT_SHOTS set to a folder, the tab as shown is kept there to look at.
    const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS");
    if (!shots.isEmpty()) QVERIFY(renderWidgetImage(&v, 1.0).save(shots + "/training_encdec_translate.png"));
  }
};

ATTNLAB_TEST_MAIN(TestEncDecTranslate)
#include "test_encdec_translate.moc"
