// Every path that changes the sentence updates the editor (issue 31): a view's edit (a strongest context clicked, a
// generated token) and Edit ▸ Append the next token. Before, the views followed and the editor did not, and the next
// keystroke threw the context or the generated tokens away.
#include <QLineEdit>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestEditorSync : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void aViewsSentenceReachesTheEditor() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    TraceView* contexts = w.view("head_contexts");
    QVERIFY(contexts);
    Params p = w.controller()->params();
    p.sentence = "a context from the corpus";
    emit contexts->paramsRequested(p);  // what a click on a strongest context sends
    QCOMPARE(w.sentenceEditor()->text(), QString("a context from the corpus"));
    QTest::keyClicks(w.sentenceEditor(), "!");  // the next keystroke extends it
    QCOMPARE(QString::fromStdString(w.controller()->params().sentence), QString("a context from the corpus!"));
  }

  void appendingTheNextTokenReachesTheEditor() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    Params p = w.controller()->params();
    p.modelDir = "builtin:induction";  // a model with a vocabulary: it predicts
    p.sentence = "the cat sat on the mat . the cat sat on the";
    w.applyParams(p);
    // The result of these parameters, not the default model's before them (no vocabulary: nothing to generate).
    QTRY_VERIFY_WITH_TIMEOUT(w.controller()->lastResult() && w.controller()->lastResult()->ok() &&
                                 w.controller()->lastResult()->params.modelDir == p.modelDir &&
                                 w.controller()->lastResult()->params.sentence == p.sentence,
                             20000);
    const QString before = w.sentenceEditor()->text();
    QTest::keySequence(w.sentenceEditor(), QKeySequence(QStringLiteral("Ctrl+G")));
    QTRY_VERIFY_WITH_TIMEOUT(w.sentenceEditor()->text() != before, 20000);
    QCOMPARE(w.sentenceEditor()->text(), QString::fromStdString(w.controller()->params().sentence));
    QVERIFY(w.sentenceEditor()->text().startsWith(before));
  }
};

ATTNLAB_TEST_MAIN(TestEditorSync)
#include "test_editor_sync.moc"
