// The built-in model's rung 7 (encoder–decoder, issue 33) in the window, driven as a user would (offscreen): choosing
// the rung in the parameter panel shows the target bar; an empty target gets a message that says what to type; a
// typed target gives the Cross-attention view a target × source map equal to the core's (core/model/builtin_encdec.h
// run directly), the stack choice shows the encoder and the cross maps in the heatmap; Translate and Next token are
// disabled with the reason, the Prediction view predicts nothing; stepping back to rung 6 keeps both texts, undo
// brings rung 7 back, and a session saves and reopens the rung.
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/model/builtin_encdec.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/param_history.h"
#include "ui/shell/param_panel.h"
#include "ui/shell/session_actions.h"
#include "ui/shell/target_bar.h"
#include "ui/views/attention/cross_attention_view.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/common/encdec_result.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const std::string kSource = "the cat sat on the mat";
const std::vector<std::string> kSourceWords{"the", "cat", "sat", "on", "the", "mat"};

float maxDiff(const Mat& a, const Mat& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

class TestBuiltinEncDecWindow : public QObject {
  Q_OBJECT

  static bool labelContains(QWidget* w, const QString& text) {
    for (QLabel* l : w->findChildren<QLabel*>())
      if (l->isVisibleTo(w) && l->text().contains(text)) return true;
    return false;
  }
  /// The last result is a finished rung-`mode` run of `target` (a two-text one at rung 7).
  static bool shows(MainWindow& w, Mode mode, const std::string& target) {
    const ResultPtr r = w.controller()->lastResult();
    return !w.controller()->busy() && r && r->ok() && r->params.model.mode == mode &&
           (mode != Mode::EncDec || (encDecRunOf(*r) && r->params.target == target));
  }
  MatrixPlot* heatmap(MainWindow& w) { return static_cast<HeatmapView*>(w.view("heatmap"))->plot(); }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void rungSevenInTheWindow() {
    MainWindow w(false);
    w.resize(1280, 720);
    w.show();
    Params p = w.controller()->params();
    p.modelDir.clear();
    p.model = ModelConfig{};
    p.model.seed = 3;
    p.sentence = kSource;
    p.target.clear();
    p.selection.view = "cross";
    w.applyParams(p);
    QTRY_VERIFY_WITH_TIMEOUT(shows(w, Mode::Block, ""), 20000);
    QVERIFY(!w.targetBar()->isVisible());

    // The user climbs to rung 7: the bar appears; with no target yet, the bar and the cross view say what to type.
    auto* mode = w.paramPanel()->findChild<QComboBox*>("mode");
    mode->setCurrentIndex(static_cast<int>(Mode::EncDec));
    QTRY_VERIFY(w.targetBar()->isVisible());
    auto* cross = static_cast<CrossAttentionView*>(w.view("cross"));
    QTRY_VERIFY_WITH_TIMEOUT(labelContains(cross, "type a target text"), 20000);
    QVERIFY(labelContains(w.targetBar(), "type a target text"));

    // Typing the target: the cross view draws target rows × source columns, the core's numbers.
    w.targetBar()->editor()->setFocus();
    QTest::keyClicks(w.targetBar()->editor(), "le chat");
    QTRY_VERIFY_WITH_TIMEOUT(shows(w, Mode::EncDec, "le chat"), 20000);
    const ModelConfig config = w.controller()->lastResult()->params.model;
    QCOMPARE(config.mode, Mode::EncDec);
    const EncDecTrace want = BuiltinEncDec(config).forward(kSourceWords, {"le", "chat"});
    QTRY_COMPARE(cross->plot()->rows(), 2);
    QCOMPARE(cross->plot()->cols(), 6);
    QVERIFY(maxDiff(cross->plot()->matrix(), want.cross[0].heads[0].attention) < 1e-6f);
    QVERIFY(!labelContains(cross, "type a target text"));
    p = w.controller()->params();
    p.selection.layer = 1;
    p.selection.head = 3;
    w.applyParams(p);
    QTRY_VERIFY(maxDiff(cross->plot()->matrix(), want.cross[1].heads[3].attention) < 1e-6f);

    // No output head: the buttons that let the model write are disabled and say why; Prediction predicts nothing.
    QVERIFY(!w.targetBar()->translateButton()->isEnabled());
    QVERIFY(!w.targetBar()->nextTokenButton()->isEnabled());
    QVERIFY(w.targetBar()->nextTokenButton()->toolTip().contains("no output head"));
    QVERIFY(w.targetBar()->translateButton()->toolTip().contains("no output head"));
    w.showView("prediction");
    QTRY_VERIFY(labelContains(w.view("prediction"), "predicts nothing"));

    // The stack choice: the heatmap shows the encoder (source × source), then the cross stack (target × source).
    w.showView("heatmap");
    QComboBox* stack = w.targetBar()->stackChoice();
    stack->setCurrentIndex(stack->findData("encoder"));
    emit stack->activated(stack->currentIndex());
    QTRY_VERIFY_WITH_TIMEOUT(
        w.controller()->lastResult()->params.selection.stack == "encoder" && heatmap(w)->rows() == 6, 20000);
    QVERIFY(maxDiff(heatmap(w)->matrix(), want.encoder.layers[1].heads[3].attention) < 1e-6f);
    stack->setCurrentIndex(stack->findData("cross"));
    emit stack->activated(stack->currentIndex());
    QTRY_VERIFY_WITH_TIMEOUT(heatmap(w)->rows() == 2 && heatmap(w)->cols() == 6, 20000);
    QVERIFY(maxDiff(heatmap(w)->matrix(), want.cross[1].heads[3].attention) < 1e-6f);

    // A session keeps the rung and both texts.
    QTemporaryDir tmp;
    const QString path = tmp.filePath("rung7.attnlab.json");
    QCOMPARE(w.sessions()->saveTo(path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const nlohmann::json saved = nlohmann::json::parse(f.readAll().toStdString());
    QCOMPARE(saved["model"]["mode"].get<std::string>(), std::string("encdec"));
    QCOMPARE(saved["target"].get<std::string>(), std::string("le chat"));

    // Back to rung 6: one text again, the sentence and the target kept in the session; undo brings rung 7 back.
    mode->setCurrentIndex(static_cast<int>(Mode::Block));
    QTRY_VERIFY_WITH_TIMEOUT(shows(w, Mode::Block, ""), 20000);
    QVERIFY(!encDecRunOf(*w.controller()->lastResult()));
    QCOMPARE(w.controller()->params().target, std::string("le chat"));
    QCOMPARE(w.controller()->params().sentence, kSource);
    QTRY_VERIFY(!w.targetBar()->isVisible());
    w.history()->stack()->undo();
    QTRY_VERIFY_WITH_TIMEOUT(shows(w, Mode::EncDec, "le chat"), 20000);
    QCOMPARE(mode->currentIndex(), static_cast<int>(Mode::EncDec));
    QVERIFY(w.targetBar()->isVisible());

    MainWindow reopened(false);
    reopened.show();
    QVERIFY(reopened.sessions()->openPath(path, true));
    QTRY_VERIFY_WITH_TIMEOUT(shows(reopened, Mode::EncDec, "le chat"), 20000);
    QCOMPARE(reopened.targetBar()->editor()->text(), QString("le chat"));
  }
};

ATTNLAB_TEST_MAIN(TestBuiltinEncDecWindow)
#include "test_builtin_encdec_window.moc"
