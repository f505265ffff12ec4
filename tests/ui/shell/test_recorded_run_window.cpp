// The window on a run recorded from Python (`attnlab --run FILE`, issue 34): it draws the recorded run and says so in
// the status bar; an edited text runs live with a note, and a file that does not read leaves the live run, named.
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "core/run/recorded_run.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/views/attention/heatmap_view.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestRecordedRunWindow : public QObject {
  Q_OBJECT

  QString status(MainWindow& w) { return w.findChild<QLabel*>("status")->text(); }
  const Mat& heatmap(MainWindow& w) { return static_cast<HeatmapView*>(w.view("heatmap"))->plot()->matrix(); }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }
  void cleanup() { clearRecordedRun(); }

  void showsTheRecordedRunAndSaysSo() {
    QTemporaryDir dir;
    Params p;
    p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";
    p.sentence = "The cat sat on the mat and the cat";
    p.selection.layer = 1;
    p.selection.head = 2;
    const auto model = loadCheckpoint(p.modelDir);
    Intervention hooked;  // what a hook zeroing head 0.1's hook_z does
    hooked.ablate = {{0, 1}};
    const Trace recorded = model->forward(model->tokenize(p.sentence), {}, hooked);
    const Trace plain = model->forward(model->tokenize(p.sentence));
    const std::string path = dir.filePath("run.attnlab-run").toStdString();
    writeRunFile(path, recorded, {model->info(), p.modelDir, nlohmann::json(), model->vocabularySize()});
    QVERIFY(setRecordedRun(path).empty());

    MainWindow w(false);
    w.show();
    w.applyParams(p);
    QTRY_VERIFY_WITH_TIMEOUT(status(w).startsWith("hooked run from Python (run.attnlab-run) · "), 20000);
    QVERIFY(w.controller()->lastResult()->trace().layers[1].heads[2].attention ==
            recorded.layers[1].heads[2].attention);
    QTRY_VERIFY(heatmap(w).rows() == recorded.tokenCount());
    QVERIFY(heatmap(w) == recorded.layers[1].heads[2].attention);
    QVERIFY(heatmap(w) != plain.layers[1].heads[2].attention);

    Params edited = p;
    edited.sentence += " sat";
    w.applyParams(edited);
    QTRY_VERIFY_WITH_TIMEOUT(status(w).startsWith("live run: the text differs from the hooked run from Python"), 20000);
    const Trace live = model->forward(model->tokenize(edited.sentence));
    QTRY_VERIFY(heatmap(w).rows() == live.tokenCount());
    QVERIFY(heatmap(w) == live.layers[1].heads[2].attention);
    if (qEnvironmentVariableIsSet("ATTNLAB_LAYOUT_SHOTS")) {  // a look at the status bar
      w.applyParams(p);
      QTRY_VERIFY_WITH_TIMEOUT(status(w).startsWith("hooked run"), 20000);
      w.grab().save(qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS") + "/recorded_run_window.png");
    }
  }
};

ATTNLAB_TEST_MAIN(TestRecordedRunWindow)
#include "test_recorded_run_window.moc"
