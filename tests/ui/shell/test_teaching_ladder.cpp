// The teaching ladder's check boxes show the state in force (issue 30): "scale" is unchecked below rung 3 (nothing is
// scaled there), the mask is checked and greyed at rung 5 (the rung is the mask), going from rung 5 to 6 keeps the
// mask, and a causal checkpoint (the trained induction model) shows a checked mask; the user's own choices survive
// rungs that ignore them, rung 7 (encoder–decoder) included. Each case is checked against what the model then computes
// (resolve(), the trace's causal flag).
#include <QCheckBox>
#include <QComboBox>
#include <QtTest>

#include "core/model/model_config.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/param_panel.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

QCheckBox* box(ParamPanel& panel, const QString& startsWith) {
  for (QCheckBox* b : panel.findChildren<QCheckBox*>())
    if (b->text().startsWith(startsWith)) return b;
  return nullptr;
}

Params atRung(Mode mode, bool scale, bool causal) {
  Params p;
  p.model.mode = mode;
  p.model.scale = scale;
  p.model.causal = causal;
  return p;
}

}  // namespace

class TestTeachingLadder : public QObject {
  Q_OBJECT

 private slots:
  void scaleIsUncheckedBelowTheScalingRung() {
    ParamPanel panel;
    panel.setParams(atRung(Mode::Qkv, true, false));
    QCheckBox* scale = box(panel, "scale");
    QVERIFY(scale);
    QVERIFY(!scale->isChecked());  // rung 2 scales nothing...
    QVERIFY(!scale->isEnabled());
    QVERIFY(!resolve(panel.applyTo(Params{}).model).scale);
    QVERIFY(panel.applyTo(Params{}).model.scale);  // ...and the user's choice is kept for rung 3
    panel.setParams(atRung(Mode::Scaled, true, false));
    QVERIFY(scale->isChecked());
    QVERIFY(resolve(panel.applyTo(Params{}).model).scale);
  }

  void theCausalRungShowsItsMask() {
    ParamPanel panel;
    panel.setParams(atRung(Mode::Causal, true, false));
    QCheckBox* causal = box(panel, "causal");
    QVERIFY(causal);
    QVERIFY(causal->isChecked());
    QVERIFY(!causal->isEnabled());
    QVERIFY(resolve(panel.applyTo(Params{}).model).causal);
  }

  void theFullBlockKeepsTheMaskOfRungFive() {
    ParamPanel panel;
    panel.setParams(atRung(Mode::Causal, true, false));
    auto* mode = panel.findChild<QComboBox*>();
    QVERIFY(mode && mode->count() == 7);
    mode->setCurrentIndex(static_cast<int>(Mode::Block));  // the user climbs to rung 6
    const ModelConfig after = panel.applyTo(Params{}).model;
    QCOMPARE(after.mode, Mode::Block);
    QVERIFY(resolve(after).causal);
    QVERIFY(box(panel, "causal")->isChecked());
    QVERIFY(box(panel, "causal")->isEnabled());  // and may take it off there
    box(panel, "causal")->setChecked(false);
    QVERIFY(!resolve(panel.applyTo(Params{}).model).causal);
  }

  /// Rung 7 sets its masks itself (encoder none, decoder causal): the switch is greyed and unchecked there, the block
  /// switches stay, and rung 6's own mask comes back when the user steps down.
  void theEncoderDecoderRungKeepsRungSixsSwitches() {
    ParamPanel panel;
    panel.setParams(atRung(Mode::Block, true, true));
    auto* mode = panel.findChild<QComboBox*>();
    mode->setCurrentIndex(static_cast<int>(Mode::EncDec));
    QVERIFY(mode->currentText().contains("encoder–decoder"));
    QCheckBox* causal = box(panel, "causal");
    QVERIFY(!causal->isChecked());
    QVERIFY(!causal->isEnabled());
    QVERIFY(box(panel, "residual")->isEnabled());
    QVERIFY(box(panel, "MLP")->isEnabled());
    const ModelConfig at7 = panel.applyTo(Params{}).model;
    QCOMPARE(at7.mode, Mode::EncDec);
    QVERIFY(!resolve(at7).causal);  // the encoder's: no mask
    mode->setCurrentIndex(static_cast<int>(Mode::Block));
    QVERIFY(causal->isChecked());
    QVERIFY(resolve(panel.applyTo(Params{}).model).causal);
  }

  void aCausalCheckpointShowsACheckedMask() {
    ParamPanel panel;
    Params p;
    p.modelDir = "builtin:induction";
    panel.setParams(p);
    panel.setModelCausal(true);
    QVERIFY(box(panel, "causal")->isChecked());
    QVERIFY(!box(panel, "causal")->isEnabled());
    panel.setModelCausal(false);
    QVERIFY(!box(panel, "causal")->isChecked());
  }
};

ATTNLAB_TEST_MAIN(TestTeachingLadder)
#include "test_teaching_ladder.moc"
