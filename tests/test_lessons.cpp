// Lessons: every shipped lesson loads and every step applies (its parameters run through the
// pipeline; steps whose view is not in this build are checked as JSON and skipped for rendering),
// malformed lesson files get a message naming the step and the field, and the panel steps with the
// keyboard.
#include <QTemporaryDir>
#include <QtTest>

#include "core/errors.h"
#include "core/pipeline.h"
#include "ui/lesson_library.h"
#include "ui/lesson_panel.h"
#include "ui/live_controller.h"
#include "ui/main_window.h"
#include "ui/view_export.h"
#include "ui/view_factory.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestLessons : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  QString writeLesson(const QByteArray& json) {
    const QString path = dir_.filePath("lesson.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    f.write(json);
    return path;
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void nineLessonsShip() { QCOMPARE(builtinLessonFiles().size(), 9); }

  void everyStepApplies_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("step");
    for (const QString& file : builtinLessonFiles()) {
      const Lesson l = loadLessonFile(file);  // a parse error fails here, naming step and field
      for (std::size_t i = 0; i < l.steps.size(); ++i)
        QTest::newRow(qPrintable(QFileInfo(file).fileName() + " step " + QString::number(i + 1))) << file << int(i);
    }
  }
  void everyStepApplies() {
    QFETCH(QString, file);
    QFETCH(int, step);
    const Lesson l = loadLessonFile(file);
    const LessonStep& s = l.steps[static_cast<std::size_t>(step)];
    QVERIFY(!s.title.empty());
    QVERIFY(s.text.size() > 40);
    const QString view = QString::fromStdString(s.view);
    const QStringList futureViews{"variants", "spectrum", "collapse"};
    QVERIFY2(viewNames().contains(view) || futureViews.contains(view), qPrintable("unknown view " + view));
    const ResultPtr r = LiveController::compute(s.params, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    checkSelection(s.params, r->trace());
    if (!viewNames().contains(view)) QSKIP(qPrintable("the view '" + view + "' is not in this build"));
    QString error;
    const auto v = makeOffscreenView(view, r, QSize(640, 480), 1.0, &error);
    QVERIFY2(v, qPrintable(error));
    QVERIFY(!v->numbers(*r).matrices.empty());
  }

  void lessonsKeepSettingsOfOtherBranches() {
    // Lessons 7–9 carry "variants"/"collapse" settings for views of other builds; here they are
    // ignored, not errors.
    const Lesson l = loadLessonFile(":/lessons/07_linear_attention.json");
    QCOMPARE(l.steps[1].view, std::string("variants"));
  }

  void malformedLessonsNameStepAndField_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("not json") << QByteArray("{\"title\": ") << "not valid JSON";
    QTest::newRow("no title") << QByteArray(R"({"steps": [{"title": "a", "text": "b"}]})") << "'title' is missing";
    QTest::newRow("no steps") << QByteArray(R"({"title": "t", "steps": []})") << "steps must be a non-empty array";
    QTest::newRow("step text") << QByteArray(
                                      R"({"title": "t", "steps": [{"title": "a", "text": "b"}, {"title": "c"}]})")
                               << "step 2 (“c”): the field 'text' is missing";
    QTest::newRow("param type")
        << QByteArray(
               R"({"title": "t", "steps": [{"title": "Heads", "text": "x", "params": {"model": {"heads": "four"}}}]})")
        << "step 1 (“Heads”): params.model.heads must be an integer";
    QTest::newRow("param value")
        << QByteArray(R"({"title": "t", "steps": [{"title": "H", "text": "x", "params": {"model": {"heads": 5}}}]})")
        << "step 1 (“H”): params.model: d_model (64) must be divisible";
    QTest::newRow("view type") << QByteArray(R"({"title": "t", "steps": [{"title": "V", "text": "x", "view": 3}]})")
                               << "step 1 (“V”): view must be a string";
    QTest::newRow("newer") << QByteArray(R"({"schema": "attnlab.lesson/2", "title": "t", "steps": []})")
                           << "newer than this program";
  }
  void malformedLessonsNameStepAndField() {
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    try {
      loadLessonFile(writeLesson(json));
      QFAIL("a malformed lesson must be refused");
    } catch (const InputError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
      QVERIFY2(QString::fromUtf8(e.what()).contains("lesson.json"), e.what());
    }
  }

  void stepsOverrideTheLessonBase() {
    const Lesson l = lessonFromText(
        R"({"title": "t", "params": {"sentence": "a b", "model": {"heads": 2}},
            "steps": [{"title": "1", "text": "x"}, {"title": "2", "text": "y", "sentence": "c d e",
                       "view": "qkv", "params": {"model": {"layers": 3}}}]})",
        "inline");
    QCOMPARE(l.steps[0].params.sentence, std::string("a b"));
    QCOMPARE(l.steps[0].params.model.heads, 2);
    QCOMPARE(l.steps[1].params.sentence, std::string("c d e"));
    QCOMPARE(l.steps[1].params.model.heads, 2);
    QCOMPARE(l.steps[1].params.model.layers, 3);
    QCOMPARE(l.steps[1].params.selection.view, std::string("qkv"));
  }

  void keyboardStepsThroughALesson() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    LessonPanel* panel = w.lessonPanel();
    panel->selectLesson(0);  // 1 · weighted average
    QTRY_COMPARE(w.controller()->params().model.mode, Mode::Basic);
    QCOMPARE(panel->stepIndex(), 0);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QCOMPARE(panel->stepIndex(), 1);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QCOMPARE(panel->stepIndex(), 2);
    QCOMPARE(w.currentView()->viewName(), QString("outputs"));
    QTest::keyClick(&w, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(panel->stepIndex(), 1);
    QCOMPARE(w.currentView()->viewName(), QString("heatmap"));
  }

  void missingViewIsANoteNotACrash() {
    MainWindow w(false);
    w.show();
    LessonPanel* panel = w.lessonPanel();
    // A user lesson file loads next to the shipped ones; its second step names a view this build
    // does not have (a lesson written for a newer version): a note, the step's parameters still apply.
    const QString path = writeLesson(
        R"({"title": "Mine", "steps": [{"title": "a", "text": "b", "sentence": "x y"},
                                       {"title": "c", "text": "d", "view": "no-such-view", "sentence": "p q r"}]})");
    QCOMPARE(panel->openFile(path, false), QString());
    QCOMPARE(panel->lessonCount(), 10);
    QTRY_COMPARE(w.controller()->params().sentence, std::string("x y"));
    panel->goToStep(1);
    QVERIFY2(panel->note().contains("no-such-view"), qPrintable(panel->note()));
    QTRY_COMPARE(w.controller()->params().sentence, std::string("p q r"));
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
  }
};

QTEST_MAIN(TestLessons)
#include "test_lessons.moc"
