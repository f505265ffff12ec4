// Sessions: exact round trips through the file, refusal of corrupt and newer files with the open
// state intact, undo/redo of parameter edits, autosave and its crash-restore file.
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "core/session/session.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/autosave.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/param_history.h"
#include "ui/shell/param_panel.h"
#include "ui/shell/session_actions.h"
#include "ui/shell/session_io.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

Params unusual() {
  Params p;
  p.sentence = "我 ❤ 🐱 \"quoted\", with, commas";
  p.lowercase = false;
  p.model.dModel = 48;
  p.model.heads = 3;
  p.model.layers = 3;
  p.model.seed = 1234567890123ull;
  p.model.mode = Mode::Multihead;
  p.model.position = PositionKind::LearnedRandom;
  p.model.scale = false;
  p.selection = {2, 1, "qkv", {}};
  p.display = {"cividis", "dark"};
  return p;
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(bytes);
}

}  // namespace

class TestSessions : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  /// Keys the program does not read (misspelled, top level and nested): the session opens, and the status bar names
  /// them with the closest known keys; a correct session says nothing of the kind.
  void unknownKeysWarnInTheStatusBar() {
    MainWindow w(false);
    const QString bad = dir_.filePath("misspelled.attnlab.json");
    writeFile(bad, R"({"schema": "attnlab.params/1", "sentence": "the dog ran", "modelDir": "/nowhere",
                      "prediction": {"ablateCross": ["0.1"]}, "session": {"schema": "attnlab.session/1"}})");
    QVERIFY(w.sessions()->openPath(bad, true));
    QCOMPARE(w.controller()->params().sentence, std::string("the dog ran"));
    QCOMPARE(w.controller()->params().modelDir, std::string());
    const QString shown = w.statusBar()->currentMessage();
    QVERIFY2(shown.contains("misspelled.attnlab.json") &&
                 shown.contains("unknown key “modelDir” (did you mean “model_dir”?); unknown key "
                                "“prediction.ablateCross” (did you mean “prediction.ablate_cross”?)"),
             qPrintable(shown));
    const QString good = dir_.filePath("correct.attnlab.json");
    QVERIFY(saveSessionFile(good, w.controller()->params()).isEmpty());
    w.statusBar()->clearMessage();
    QVERIFY(w.sessions()->openPath(good, true));
    QVERIFY2(!w.statusBar()->currentMessage().contains("unknown key"), qPrintable(w.statusBar()->currentMessage()));
  }

  void sessionRoundTripsExactly() {
    const QString path = dir_.filePath("s.attnlab.json");
    QCOMPARE(saveSessionFile(path, unusual()), QString());
    QString error;
    const auto back = loadSessionFile(path, &error);
    QVERIFY2(back.has_value(), qPrintable(error));
    QCOMPARE(toJson(*back).dump(), toJson(unusual()).dump());
    // Saving what was read gives the same bytes.
    const QString again = dir_.filePath("again.attnlab.json");
    QCOMPARE(saveSessionFile(again, *back), QString());
    QFile a(path), b(again);
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    QCOMPARE(a.readAll(), b.readAll());
  }

  void sessionIsAParamsFileForTheCommandLine() {
    const nlohmann::json j = sessionToJson(unusual());
    QCOMPARE(j["session"]["schema"].get<std::string>(), std::string(kSessionSchema));
    QCOMPARE(toJson(paramsFromJson(j)).dump(), toJson(unusual()).dump());
  }

  void badFilesAreRefusedWithAMessage_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("message");
    QTest::newRow("truncated") << QByteArray("{\"sentence\": \"a b") << "not valid JSON";
    QTest::newRow("binary") << QByteArray("\x89PNG\r\n\x1a\n", 8) << "not valid JSON";
    QTest::newRow("empty") << QByteArray() << "not valid JSON";
    QTest::newRow("array") << QByteArray("[1, 2]") << "not an Attention Lab session";
    QTest::newRow("newer session") << QByteArray(R"({"session": {"schema": "attnlab.session/7"}})")
                                   << "newer Attention Lab (format version 7";
    QTest::newRow("newer params") << QByteArray(R"({"schema": "attnlab.params/2"})") << "newer than this program";
    QTest::newRow("foreign") << QByteArray(R"({"session": {"schema": "other/1"}})") << "not attnlab.session/N";
    QTest::newRow("bad field") << QByteArray(R"({"model": {"heads": "four"}})") << "model.heads must be an integer";
    QTest::newRow("bad colormap") << QByteArray(R"({"display": {"colormap": "jet"}})") << "display.colormap is 'jet'";
  }
  void badFilesAreRefusedWithAMessage() {
    QFETCH(QByteArray, content);
    QFETCH(QString, message);
    const QString path = dir_.filePath("bad.json");
    writeFile(path, content);
    QString error;
    QVERIFY(!loadSessionFile(path, &error).has_value());
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY2(error.contains("bad.json"), qPrintable(error));
  }

  void corruptSessionLeavesTheOpenOneIntact() {
    MainWindow w(false);
    w.show();
    Params p = unusual();
    p.display = {};
    p.selection.view = "heatmap";
    w.applyParams(p);
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->params.sentence == p.sentence);
    const QString path = dir_.filePath("corrupt.json");
    writeFile(path, "{\"sentence\": \"other\", \"model\": {\"heads\": ");
    QString error;
    QVERIFY(!w.sessions()->openPath(path, true, &error));
    QVERIFY(error.contains("not valid JSON"));
    QCOMPARE(toJson(w.controller()->params()).dump(), toJson(p).dump());
    QCOMPARE(w.sentenceEditor()->text().toStdString(), p.sentence);
    QCOMPARE(w.sessions()->currentPath(), QString());
  }

  void saveAndOpenThroughTheWindow() {
    MainWindow w(false);
    w.show();
    Params p = unusual();
    p.display = {};
    w.applyParams(p);
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
    const QString path = dir_.filePath("window.attnlab.json");
    QCOMPARE(w.sessions()->saveTo(path), QString());
    QVERIFY(w.sessions()->recentFiles().contains(QFileInfo(path).absoluteFilePath()));

    MainWindow other(false);
    other.show();
    QVERIFY(other.sessions()->openPath(path, true));
    QCOMPARE(toJson(other.currentParams()).dump(), toJson(w.currentParams()).dump());
    QCOMPARE(other.currentView()->viewName(), QString("qkv"));  // the session's view is shown
    QTRY_VERIFY(other.controller()->lastResult() && other.controller()->lastResult()->params.sentence == p.sentence);
  }

  void undoRestoresParameters() {
    MainWindow w(false);
    w.show();
    QTRY_VERIFY(w.controller()->lastResult());
    const Params start = w.controller()->params();
    QCOMPARE(w.history()->stack()->count(), 0);
    w.paramPanel()->findChild<QSpinBox*>("heads")->setValue(8);
    QCOMPARE(w.controller()->params().model.heads, 8);
    QTest::qWait(1100);  // a new field after a pause is a new undo step
    w.paramPanel()->findChild<QSpinBox*>("layers")->setValue(3);
    QCOMPARE(w.history()->stack()->count(), 2);
    w.history()->stack()->undo();
    QCOMPARE(w.controller()->params().model.layers, start.model.layers);
    QCOMPARE(w.paramPanel()->findChild<QSpinBox*>("layers")->value(), start.model.layers);
    QCOMPARE(w.controller()->params().model.heads, 8);
    w.history()->stack()->undo();
    QCOMPARE(toJson(w.controller()->params()).dump(), toJson(start).dump());
    QTRY_COMPARE(w.controller()->lastResult()->trace().headCount(), start.model.heads);
    w.history()->stack()->redo();
    QCOMPARE(w.controller()->params().model.heads, 8);
    QCOMPARE(w.paramPanel()->findChild<QSpinBox*>("heads")->value(), 8);
  }

  void typingMergesIntoOneUndoStep() {
    MainWindow w(false);
    w.show();
    QTRY_VERIFY(w.controller()->lastResult());
    const std::string before = w.controller()->params().sentence;
    QTest::keyClicks(w.sentenceEditor(), " today");
    QCOMPARE(w.history()->stack()->count(), 1);
    w.history()->stack()->undo();
    QCOMPARE(w.controller()->params().sentence, before);
    QCOMPARE(w.sentenceEditor()->text().toStdString(), before);
  }

  void changedFieldsNamesThem_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::newRow("sentence") << "sentence"
                              << "sentence";
    QTest::newRow("heads") << "heads"
                           << "model.heads";
    QTest::newRow("colormap") << "colormap"
                              << "display.colormap";
  }
  void changedFieldsNamesThem() {
    QFETCH(QString, field);
    QFETCH(QString, expected);
    Params a, b;
    if (field == "sentence") b.sentence = "x";
    if (field == "heads") b.model.heads = 2;
    if (field == "colormap") b.display.colormap = "magma";
    QCOMPARE(QString::fromStdString(changedFields(a, b)), expected);
    QCOMPARE(QString::fromStdString(changedFields(a, a)), QString());
  }

  void undoTextsSpeakThePanelsWords_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("expected");
    QTest::newRow("sentence") << "sentence"
                              << "typing";
    QTest::newRow("head") << "head"
                          << "head 2 → 3";
    QTest::newRow("mode") << "mode"
                          << "mode: multi-head";
    QTest::newRow("causal") << "causal"
                            << "causal mask on";
    QTest::newRow("heads") << "heads"
                           << "heads 4 → 8";
    QTest::newRow("width") << "width"
                           << "d_model 64 → 32";
    QTest::newRow("colormap") << "colormap"
                              << "colour map: magma";
    QTest::newRow("model") << "model"
                           << "model: gpt2_tiny";
    QTest::newRow("head and layer") << "head+layer"
                                    << "head and layer";
    QTest::newRow("three") << "heads+layers+width"
                           << "d_model, heads and layers";
  }
  void undoTextsSpeakThePanelsWords() {
    QFETCH(QString, change);
    QFETCH(QString, expected);
    Params a;
    a.model.dModel = 64;
    a.model.heads = 4;
    a.model.mode = Mode::Scaled;
    a.selection.head = 2;
    Params b = a;
    for (const QString& c : change.split('+')) {
      if (c == "sentence") b.sentence = "x";
      if (c == "head") b.selection.head = 3;
      if (c == "layer") b.selection.layer = 1;
      if (c == "mode") b.model.mode = Mode::Multihead;
      if (c == "causal") b.model.causal = true;
      if (c == "heads") b.model.heads = 8;
      if (c == "layers") b.model.layers = 3;
      if (c == "width") b.model.dModel = 32;
      if (c == "colormap") b.display.colormap = "magma";
      if (c == "model") b.modelDir = "/data/models/gpt2_tiny";
    }
    QCOMPARE(describeChange(a, b), expected);
  }

  void editUndoNamesTheStep() {
    MainWindow w(false);
    w.show();
    QTRY_VERIFY(w.controller()->lastResult());
    const int head = w.controller()->params().selection.head;
    w.paramPanel()->findChild<QSpinBox*>("head")->setValue(head == 0 ? 1 : 0);
    QCOMPARE(w.history()->stack()->undoText(), QString("head %1 → %2").arg(head).arg(head == 0 ? 1 : 0));
    QTest::qWait(1100);
    QTest::keyClicks(w.sentenceEditor(), "!");
    QCOMPARE(w.history()->stack()->undoText(), QString("typing"));
  }

  void viewEditsAreRebasedOnTheCurrentParameters() {
    Params base;  // what the view's result was computed with
    base.sentence = "old sentence";
    Params edited = base;
    edited.collapse.depth = 9;
    edited.spectra.demo.n = 50;
    Params now = base;
    now.sentence = "typed since";
    now.model.causal = true;
    const Params r = rebaseEdit(base, edited, now);
    QCOMPARE(r.sentence, now.sentence);
    QVERIFY(r.model.causal);
    QCOMPARE(r.collapse.depth, 9);
    QCOMPARE(r.spectra.demo.n, 50);
  }

  void titleNamesTheSessionAndASaveSaysSo() {
    MainWindow w(false);
    w.show();
    QTRY_VERIFY(w.controller()->lastResult());
    QVERIFY(!w.isWindowModified());
    const QString path = dir_.filePath("lecture 3.attnlab.json");
    QCOMPARE(w.sessions()->saveTo(path), QString());
    QCOMPARE(w.windowTitle(), QString("lecture 3[*] — Attention Lab"));
    QVERIFY(!w.isWindowModified());
    QCOMPARE(w.statusBar()->currentMessage(), "Saved session to " + QDir::toNativeSeparators(path));
    QTest::keyClicks(w.sentenceEditor(), " more");
    QVERIFY(w.isWindowModified());
    QVERIFY(w.sessions()->openPath(path, true));
    QVERIFY(!w.isWindowModified());
  }

  void autosaveLeavesARecoveryFileUntilACleanExit() {
    const QString path = dir_.filePath("auto/autosave.attnlab.json");
    Params current = unusual();
    Autosave a(path, [&current] { return current; });
    QVERIFY(!a.hasRecovery());
    QCOMPARE(a.saveNow(), QString());
    QVERIFY(a.hasRecovery());  // a crash now would leave this file behind
    current.sentence = "edited later";
    a.touch();
    const auto sentenceOnDisk = [&a] {
      QString e;
      const auto p = a.recover(&e);
      return p ? p->sentence : std::string();
    };
    QTRY_COMPARE_WITH_TIMEOUT(sentenceOnDisk(), std::string("edited later"), 5000);
    QString error;
    QCOMPARE(toJson(*a.recover(&error)).dump(), toJson(current).dump());
    a.clear();
    QVERIFY(!a.hasRecovery());
  }

  void aRunningWindowsAutosaveIsNotOfferedAsACrash() {
    // Two windows: each its own file, held by a lock while it runs. Only files whose window is gone (a crash, or an
    // older version's autosave.attnlab.json) are offered, newest first.
    const QString folder = dir_.filePath("two-windows");
    Params current = unusual();
    auto first = std::make_unique<Autosave>(folder + "/autosave-1.attnlab.json", [&current] { return current; });
    QCOMPARE(first->saveNow(), QString());
    QVERIFY(QFileInfo::exists(folder + "/autosave-1.attnlab.json.lock"));
    QCOMPARE(Autosave::orphans(folder), QStringList());  // the first window still runs
    Autosave second(folder + "/autosave-2.attnlab.json", [&current] { return current; });
    QCOMPARE(second.saveNow(), QString());
    QCOMPARE(Autosave::orphans(folder), QStringList());
    // The first window ends without a clean exit (its lock goes with its process).
    first.reset();
    QCOMPARE(Autosave::orphans(folder), QStringList{QFileInfo(folder + "/autosave-1.attnlab.json").absoluteFilePath()});
    QFile legacy(folder + "/autosave.attnlab.json");
    QVERIFY(legacy.open(QIODevice::WriteOnly));
    legacy.write("{}");
    legacy.close();
    QCOMPARE(Autosave::orphans(folder).size(), 2);
    QCOMPARE(QFileInfo(Autosave::orphans(folder).front()).fileName(), QString("autosave.attnlab.json"));  // newest
    QVERIFY(QFileInfo(Autosave::defaultPath()).fileName().startsWith("autosave-"));
  }

  void aSessionFileChangedOnDiskIsNoticed() {
    MainWindow w(false);
    const QString path = dir_.filePath("shared.attnlab.json");
    QCOMPARE(w.sessions()->saveTo(path), QString());
    QVERIFY(!w.sessions()->changedOnDisk());
    // Another window saves the same file.
    MainWindow other(false);
    QVERIFY(other.sessions()->openPath(path, true));
    QTest::qWait(1100);  // past the file system's timestamp granularity
    Params p = other.currentParams();
    p.sentence = "the other window's sentence";
    other.applyParams(p);
    QCOMPARE(other.sessions()->saveTo(path), QString());
    QVERIFY(w.sessions()->changedOnDisk());  // File ▸ Save now asks before overwriting
    QVERIFY(!other.sessions()->changedOnDisk());
  }
};

ATTNLAB_TEST_MAIN(TestSessions)
#include "test_sessions.moc"
