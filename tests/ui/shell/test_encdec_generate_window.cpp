// Generate N in the window's target bar (issue 33), driven as a user would (offscreen), on builtin:reverse and the tiny
// Marian checkpoint with its SentencePiece files: greedy = generateGreedy's first N tokens, one edit of the target per
// token; sampled = `attnlab generate --source … --steps N --temperature … --top-k … --seed …` token for token (the
// command-line program run as a process); Stop, typing in either editor, another model and undo; the positions limit
// and an empty source. Expected texts are the core's ids decoded by this test, never the window's own code.
#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>
#include <functional>

#include "core/checkpoint/encdec_folder.h"
#include "core/train/shipped_models.h"
#include "tests/encdec_window.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/model_opener.h"
#include "ui/shell/param_history.h"
#include "ui/shell/sentence_editor.h"
#include "ui/shell/target_bar.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/common/trace_view.h"

using namespace attnlab;
using namespace attnlab::ui;
using namespace attnlab::test;

namespace {

/// The ids `attnlab generate` writes, one JSON line per step.
std::vector<int> cliIds(const QStringList& args) {
  QProcess p;
  p.start(ATTNLAB_APP_BINARY, QStringList{"generate"} + args);
  if (!p.waitForFinished(60000) || p.exitCode() != 0) {
    qWarning("%s", p.readAllStandardError().constData());
    return {};
  }
  std::vector<int> ids;
  for (const QByteArray& line : p.readAllStandardOutput().split('\n'))
    if (!line.trimmed().isEmpty()) ids.push_back(QJsonDocument::fromJson(line).object()["id"].toInt());
  return ids;
}

}  // namespace

class TestEncDecGenerateWindow : public QObject {
  Q_OBJECT

  static QString note(MainWindow& w) { return w.targetBar()->note()->isVisible() ? w.targetBar()->note()->text() : ""; }
  /// Waits until the generation has ended and the views have run its last text.
  static bool settled(MainWindow& w) {
    return !w.targetBar()->generating() && !w.controller()->busy() &&
           w.controller()->lastResult()->params.target == w.targetBar()->editor()->text().toStdString();
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  /// builtin:reverse, greedy: Generate 3 appends a, b, c one edit each (the views run each), then Generate 8 from
  /// there writes d and stops at the end of text, saying so; the session keeps the count; undo brings back the
  /// target before the generation (the one-text Generate's edits: merged within a second).
  void greedyFollowsEachToken() {
    const EncDecFolder f = openEncDecFolder(shippedEncDecFolder(kShippedReverseModel));
    const std::vector<int> src = f.source->encode("d c b a", true).ids;
    const std::vector<int> greedy = f.model->generateGreedy(src, 10);  // a b c d </s>
    QCOMPARE(static_cast<int>(greedy.size()), 5);
    const int eos = f.model->config().eosId;

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, QString::fromLatin1(kShippedReverseModel), "d c b a"));
    TargetBar* bar = w.targetBar();
    QVERIFY(bar->nextTokenButton()->isVisible() && bar->nextTokenButton()->menu());  // Generate N on its arrow
    QVERIFY(!bar->sampleChoice()->isChecked() && !bar->seedChoice()->isEnabled());   // greedy by default, as one text's
    QCOMPARE(bar->generateButton()->text(), QString("Generate 8 tokens"));           // the session's count
    bar->stepsChoice()->setValue(3);
    QCOMPARE(bar->generateButton()->text(), QString("Generate 3 tokens"));
    QTRY_COMPARE(w.controller()->params().prediction.generateSteps, 3);
    QSignalSpy produced(bar, &TargetBar::targetProduced);
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(w) && !w.controller()->lastResult()->params.target.empty(), 20000);
    QCOMPARE(produced.count(), 3);  // one edit per token
    for (int i = 0; i < 3; ++i)
      QCOMPARE(produced[i][1].value<std::string>(),
               piecesAsText(*f.target, std::vector<int>(greedy.begin(), greedy.begin() + i + 1), eos));
    QCOMPARE(bar->editor()->text().toStdString(), std::string("a b c"));
    QVERIFY(note(w).contains("Generated 3 token(s) (greedy)"));
    QVERIFY(bar->nextTokenButton()->isVisible() && !bar->stopButton()->isVisible());

    // On from "a b c": d, then the end of text.
    produced.clear();
    bar->stepsChoice()->setValue(8);
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(w) && w.controller()->lastResult()->params.target == "a b c d", 20000);
    QCOMPARE(produced.count(), 1);
    QVERIFY2(note(w).contains("ended the translation after 2 token(s)"), qPrintable(note(w)));

    // Undo: back through the generated tokens to the empty target (a few steps at most: edits merge within a second).
    QUndoStack* undo = w.history()->stack();
    for (int i = 0; i < 6 && !w.controller()->params().target.empty(); ++i) {
      undo->undo();
      const std::string t = w.controller()->params().target;
      QVERIFY2(std::string("a b c d").rfind(t, 0) == 0, t.c_str());  // each step back is an earlier target
    }
    QCOMPARE(w.controller()->params().target, std::string());
    QCOMPARE(bar->editor()->text(), QString());
  }

  /// The tiny Marian checkpoint, sampled: the target the window writes is the command line's ids decoded, token for
  /// token, with the same temperature, top-k and seed; the same seed again gives the same target; greedy Generate 5 =
  /// generateGreedy's first 5.
  void sampledEqualsTheCommandLine() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const int eos = f.model->config().eosId;
    const std::string source = "the attention head looks back at earlier tokens";
    const std::vector<int> cli = cliIds({"--model", dir, "--source", QString::fromStdString(source), "--steps", "6",
                                         "--temperature", "1.5", "--top-k", "40", "--seed", "7"});
    QCOMPARE(static_cast<int>(cli.size()), 6);
    const std::string expected = piecesAsText(*f.target, cli, eos);

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, source));
    Params p = w.controller()->params();
    p.prediction.temperature = 1.5;  // the Prediction chapter's sampling settings
    p.prediction.topK = 40;
    w.applyParams(p);
    TargetBar* bar = w.targetBar();
    bar->stepsChoice()->setValue(6);
    bar->sampleChoice()->setChecked(true);
    QVERIFY(bar->seedChoice()->isEnabled());
    bar->seedChoice()->setValue(7);
    QCOMPARE(bar->generateButton()->text(), QString("Sample 6 tokens"));
    QTRY_VERIFY(!w.controller()->params().prediction.greedy && w.controller()->params().prediction.seed == 7);
    QVERIFY(bar->sampleChoice()->toolTip().contains("1.5"));
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(w) && !w.controller()->lastResult()->params.target.empty(), 20000);
    QCOMPARE(bar->editor()->text().toStdString(), expected);
    QVERIFY(note(w).contains("sampled, seed 7"));

    // Reproducible: the same seed from the same (empty) target.
    bar->editor()->clear();
    emit bar->editor()->textEdited(QString());
    QTRY_VERIFY(w.controller()->lastResult()->params.target.empty());
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(w) && !w.controller()->lastResult()->params.target.empty(), 20000);
    QCOMPARE(bar->editor()->text().toStdString(), expected);

    // Greedy: generateGreedy's first 5.
    bar->sampleChoice()->setChecked(false);
    bar->stepsChoice()->setValue(5);
    bar->editor()->clear();
    emit bar->editor()->textEdited(QString());
    QTRY_VERIFY(w.controller()->lastResult()->params.target.empty());
    // (Translate's budget is transformers' max_new_tokens, whose last token Marian's forced eos takes; Generate N
    // counts steps: compare with a longer translation's first 5.)
    std::vector<int> greedy = f.model->generateGreedy(f.source->encode(source, true).ids, 64);
    greedy.resize(std::min<std::size_t>(greedy.size(), 5));
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(w) && !w.controller()->lastResult()->params.target.empty(), 20000);
    QCOMPARE(bar->editor()->text().toStdString(), piecesAsText(*f.target, greedy, eos));
  }

  /// What ends a generation: Stop, typing in the source or the target (the typed text wins: no token lands after it),
  /// another model (no crash; the bar goes). Each leaves a target that the generation had reached.
  void stopsAndTheUserWins() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::string source = "the attention head looks back at earlier tokens";
    const std::string full = piecesAsText(*f.target, f.model->generateGreedy(f.source->encode(source, true).ids, 300),
                                          f.model->config().eosId);

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, source));
    TargetBar* bar = w.targetBar();
    bar->stepsChoice()->setValue(300);

    // Stop: pressed at once, before any token reached the window.
    bar->generateButton()->click();
    QVERIFY(bar->generating() && bar->stopButton()->isVisible() && !bar->nextTokenButton()->isVisible());
    QTest::mouseClick(bar->stopButton(), Qt::LeftButton);
    QVERIFY(!bar->generating());
    QTest::qWait(300);
    QCOMPARE(bar->editor()->text(), QString());  // the queued tokens were dropped
    QVERIFY(note(w).contains("Stopped after 0 token(s)"));

    // The interruptions below happen while the first token is being taken (inside its edit): the tiny model makes
    // its 300 tokens faster than a test could press a key between two of them.
    const auto onFirstToken = [bar](std::function<void()> act) {
      auto fired = std::make_shared<bool>(false);
      auto c = std::make_shared<QMetaObject::Connection>();
      *c = QObject::connect(bar, &TargetBar::targetProduced, bar, [fired, c, act] {
        if (*fired) return;
        *fired = true;
        QObject::disconnect(*c);
        act();
      });
    };
    const QString first = QString::fromStdString(piecesAsText(
        *f.target, {f.model->generateGreedy(f.source->encode(source, true).ids, 64)[0]}, f.model->config().eosId));

    // Typing in the source while tokens arrive: the generation stops, the typed source stays.
    SentenceEditor* sourceEditor = w.sentenceEditor();
    sourceEditor->setFocus();
    sourceEditor->end(false);
    onFirstToken([sourceEditor] { QTest::keyClick(sourceEditor, 's'); });
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!bar->generating(), 20000);
    QVERIFY2(note(w).contains("the text was edited"), qPrintable(note(w)));
    QCOMPARE(bar->editor()->text(), first);  // no token landed after the typing
    QVERIFY(full.rfind(first.toStdString(), 0) == 0);
    QTest::qWait(300);
    QCOMPARE(bar->editor()->text(), first);
    QCOMPARE(w.controller()->params().sentence, source + "s");

    // Typing in the target: the same, and the typed text is what runs.
    bar->editor()->clear();
    emit bar->editor()->textEdited(QString());
    QTRY_VERIFY(settled(w) && w.controller()->lastResult()->params.target.empty());
    bar->editor()->setFocus();
    onFirstToken([bar] {
      bar->editor()->end(false);
      QTest::keyClick(bar->editor(), 'x');
    });
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!bar->generating(), 20000);
    QVERIFY2(note(w).contains("the text was edited"), qPrintable(note(w)));
    QCOMPARE(bar->editor()->text(), first + "x");
    QTest::qWait(300);
    QCOMPARE(bar->editor()->text(), first + "x");
    QTRY_COMPARE(w.controller()->lastResult()->params.target, (first + "x").toStdString());

    // Another model mid-generation (the folder the opener applies once the model is loaded): it stops; the built-in
    // model runs; the bar goes; no crash.
    bar->editor()->clear();
    emit bar->editor()->textEdited(QString());
    QTRY_VERIFY(settled(w) && w.controller()->lastResult()->params.target.empty());
    onFirstToken([&w] {
      Params q = w.controller()->params();
      q.modelDir.clear();
      w.applyParams(q);
    });
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!bar->generating(), 20000);
    QVERIFY2(bar->note()->text().contains("the model changed"), qPrintable(bar->note()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(!encdecShown(w) && w.controller()->lastResult()->params.modelDir.empty(), 20000);
    QVERIFY(!bar->isVisible());
    // And through the opener, while a generation runs: no crash, nothing running afterwards.
    QVERIFY(openEncDecAndWait(w, dir, source));
    bar->generateButton()->click();
    w.modelOpener()->open(QString());
    QTRY_VERIFY_WITH_TIMEOUT(!encdecShown(w) && w.controller()->lastResult()->params.modelDir.empty(), 20000);
    QVERIFY(!bar->generating());

    // A window closed while tokens are being made: its bar stops the worker and waits for it (no crash, no token
    // posted to a destroyed bar).
    auto other = std::make_unique<MainWindow>(false);
    other->show();
    QVERIFY(openEncDecAndWait(*other, dir, source));
    other->targetBar()->stepsChoice()->setValue(300);
    other->targetBar()->generateButton()->click();
    QVERIFY(other->targetBar()->generating());
    other.reset();
    QTest::qWait(200);
  }

  /// Bad input: a target at builtin:reverse's 11 positions is refused naming both lengths (nothing runs); a target with
  /// Temperature, top-k and top-p on Generate N's menu: the session's fields, so an edit in the menu reaches the
  /// Prediction view's controls and one there reaches the menu; undoable; a sampled Generate uses them (the command
  /// line's ids with the same values; with the default temperature and top-p the same seed gives another text, so the
  /// comparison tells the values apart). The menu open at 1280×720 is written to ATTNLAB_LAYOUT_SHOTS.
  void samplingChoicesInTheMenu() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const int eos = f.model->config().eosId;
    const std::string source = "the attention head looks back at earlier tokens";
    const QStringList common{"--model", dir, "--source", QString::fromStdString(source), "--steps", "6", "--seed", "7"};
    const std::vector<int> cli =
        cliIds(common + QStringList{"--temperature", "1.5", "--top-k", "40", "--top-p", "0.9"});
    const std::vector<int> plain = cliIds(common + QStringList{"--top-k", "40"});
    QCOMPARE(static_cast<int>(cli.size()), 6);
    QVERIFY2(cli != plain, "temperature 1.5 and top-p 0.9 draw the same tokens as 1 and 1: pick another seed");

    MainWindow w(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, source));
    w.showView("prediction");
    TraceView* view = w.view("prediction");
    QVERIFY(view);
    auto* viewTemperature = view->findChild<QDoubleSpinBox*>("predictionTemperature");
    auto* viewTopK = view->findChild<QSpinBox*>("predictionTopK");
    auto* viewTopP = view->findChild<QDoubleSpinBox*>("predictionTopP");
    QVERIFY(viewTemperature && viewTopK && viewTopP);
    TargetBar* bar = w.targetBar();
    QVERIFY(!bar->temperatureChoice()->isEnabled());  // greedy: the sampling settings do not apply
    bar->sampleChoice()->setChecked(true);
    QVERIFY(bar->temperatureChoice()->isEnabled() && bar->topKChoice()->isEnabled() && bar->topPChoice()->isEnabled());
    bar->stepsChoice()->setValue(6);
    bar->seedChoice()->setValue(7);
    // Menu → session → Prediction view.
    bar->temperatureChoice()->setValue(1.5);
    bar->topKChoice()->setValue(40);
    bar->topPChoice()->setValue(0.9);
    const auto sessionIs = [&w](double t, int k, double p) {
      const PredictionSettings& s = w.controller()->params().prediction;
      return s.temperature == t && s.topK == k && s.topP == p;
    };
    QTRY_VERIFY(sessionIs(1.5, 40, 0.9));
    QTRY_VERIFY_WITH_TIMEOUT(viewTemperature->value() == 1.5 && viewTopK->value() == 40 && viewTopP->value() == 0.9,
                             20000);
    QVERIFY(bar->sampleChoice()->toolTip().contains("softmax(logits / 1.5)"));

    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty()) {
      // The menu is its own window: drawn over the window's grab where it opens, under Next token's arrow.
      QMenu* menu = bar->nextTokenButton()->menu();
      QTimer::singleShot(300, menu, [&w, menu, shots] {
        QImage shot = w.grab().toImage();
        QPainter painter(&shot);
        painter.drawPixmap(w.mapFromGlobal(menu->pos()), menu->grab());
        painter.end();
        shot.save(shots + "/target_generate_menu.png");
        menu->close();
      });
      bar->nextTokenButton()->showMenu();
    }

    // A sampled Generate uses them: the command line's tokens with the same values.
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(w) && !w.controller()->lastResult()->params.target.empty(), 20000);
    QCOMPARE(bar->editor()->text().toStdString(), piecesAsText(*f.target, cli, eos));
    QVERIFY(bar->editor()->text().toStdString() != piecesAsText(*f.target, plain, eos));

    // Prediction view → session → menu.
    viewTopK->setValue(5);
    QTRY_VERIFY(sessionIs(1.5, 5, 0.9));
    QTRY_COMPARE(bar->topKChoice()->value(), 5);

    // Undo walks back through those edits (the target too) to the defaults, in the menu as in the session.
    QUndoStack* undo = w.history()->stack();
    for (int i = 0; i < 20 && !sessionIs(1.0, 0, 1.0); ++i) undo->undo();
    QVERIFY(sessionIs(1.0, 0, 1.0));
    QCOMPARE(bar->temperatureChoice()->value(), 1.0);
    QCOMPARE(bar->topKChoice()->value(), 0);
    QCOMPARE(bar->topPChoice()->value(), 1.0);
    undo->redo();
    QTRY_VERIFY(!sessionIs(1.0, 0, 1.0));
    QCOMPARE(bar->temperatureChoice()->value(), w.controller()->params().prediction.temperature);
  }

  /// room for fewer tokens than asked gets those, with a note; an empty source gets the pipeline's message.
  void badInput() {
    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, QString::fromLatin1(kShippedReverseModel), "j i h g f e d c b a"));
    TargetBar* bar = w.targetBar();
    Params p = w.controller()->params();
    p.target = "a b c d e f g h i j";  // 10 tokens and the start token: all 11 positions
    w.applyParams(p);
    QTRY_VERIFY(settled(w) && w.controller()->lastResult()->params.target == p.target);
    QSignalSpy produced(bar, &TargetBar::targetProduced);
    bar->generateButton()->click();
    QVERIFY(!bar->generating());
    QVERIFY2(note(w).contains("has 11 tokens") && note(w).contains("model's 11") && note(w).contains("no room"),
             qPrintable(note(w)));
    QCOMPARE(produced.count(), 0);

    p.target = "a b c d e f g h";  // 9 tokens: room for 2
    w.applyParams(p);
    QTRY_VERIFY(settled(w) && w.controller()->lastResult()->params.target == p.target);
    bar->stepsChoice()->setValue(5);
    bar->generateButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(w) && w.controller()->lastResult()->params.target != p.target, 20000);
    QCOMPARE(produced.count(), 2);
    QVERIFY2(note(w).contains("2 of the 5 tokens asked"), qPrintable(note(w)));

    // An empty source: the run is refused (the views keep the last one), and Generate says why.
    p.sentence = " ";
    p.target.clear();
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy());
    bar->generateButton()->click();
    QTRY_VERIFY(!bar->generating());
    QTRY_VERIFY2(note(w).contains("source text is empty"), qPrintable(note(w)));
  }
};

ATTNLAB_TEST_MAIN(TestEncDecGenerateWindow)
#include "test_encdec_generate_window.moc"
