// Ctrl+Z in the sentence editor walks the program's history (issue 30): sentence edits and parameter changes undo in
// the order they were made, the editor follows, and an empty history leaves the text alone (QLineEdit's own undo jumped
// back to the sentence the program started with).
#include <QLineEdit>
#include <QUndoStack>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/param_history.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestEditorUndo : public QObject {
  Q_OBJECT

  static void press(QWidget* w, QKeySequence::StandardKey key) {
    const QKeySequence s(key);
    QTest::keySequence(w, s);
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void ctrlZInTheEditorUndoesEditsInOrder() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* editor = w.sentenceEditor();
    editor->setFocus();
    const QString start = editor->text();
    editor->end(false);
    QTest::keyClicks(editor, " now");
    QCOMPARE(editor->text(), start + " now");
    QTest::qWait(1100);  // a new step after a pause (typing within a second merges into one)
    Params p = w.controller()->params();
    const int head = p.selection.head;
    p.selection.head = head == 0 ? 1 : 0;  // a parameter change after the typing
    w.edit(p);
    QCOMPARE(w.history()->stack()->count(), 2);

    press(editor, QKeySequence::Undo);  // the head change first...
    QCOMPARE(w.controller()->params().selection.head, head);
    QCOMPARE(editor->text(), start + " now");
    press(editor, QKeySequence::Undo);  // ...then the typing
    QCOMPARE(editor->text(), start);
    QCOMPARE(QString::fromStdString(w.controller()->params().sentence), start);
    press(editor, QKeySequence::Undo);  // nothing left: the text stays
    QCOMPARE(editor->text(), start);
    press(editor, QKeySequence::Redo);
    QCOMPARE(editor->text(), start + " now");
    QCOMPARE(QString::fromStdString(w.controller()->params().sentence), start + " now");
  }
};

ATTNLAB_TEST_MAIN(TestEditorUndo)
#include "test_editor_undo.moc"
