// What a user does with any view of the window (offscreen): Ctrl+E exports from anywhere, the
// sentence editor included, and a right click on any part of any view gives the export menu.
#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTextEdit>
#include <QTimer>
#include <QVBoxLayout>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/shell/export_dialog.h"
#include "ui/shell/main_window.h"
#include "ui/shell/view_actions.h"
#include "ui/shell/view_factory.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// The deepest visible widget under `view`'s centre (a plot, a table's viewport, a canvas).
QWidget* deepestChildAtCentre(QWidget* view) {
  QWidget* w = view;
  for (QWidget* c = view; c; c = w->childAt(w->rect().center())) {
    if (c != view) w = c;
    if (!w->childAt(w->rect().center())) break;
  }
  return w;
}

/// The texts of the actions of the menu a right click on `target` opens (empty: no menu). The menu
/// is closed as soon as it shows.
QStringList contextMenuOf(QWidget* target) {
  QStringList seen;
  QTimer poll;
  poll.setInterval(10);
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
      for (QAction* a : menu->actions()) seen << a->text();
      menu->close();
    }
  });
  poll.start();
  const QPoint pos = target->rect().center();
  QContextMenuEvent event(QContextMenuEvent::Mouse, pos, target->mapToGlobal(pos));
  QApplication::sendEvent(target, &event);
  return seen;
}

/// Text editors keep their own menu (cut, copy, paste).
bool isEditor(QWidget* w) {
  for (; w; w = w->parentWidget())
    if (qobject_cast<QLineEdit*>(w) || qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QTextEdit*>(w) ||
        qobject_cast<QPlainTextEdit*>(w))
      return true;
  return false;
}

/// A line edit that claims Ctrl+E as "end of line", as QLineEdit does with the X11 key bindings (the
/// xcb platform); offscreen Qt uses the Windows bindings, where it does not.
class EmacsLineEdit : public QLineEdit {
 protected:
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ShortcutOverride &&
        static_cast<QKeyEvent*>(e)->keyCombination() == QKeyCombination(Qt::ControlModifier, Qt::Key_E)) {
      e->accept();
      return true;
    }
    return QLineEdit::event(e);
  }
};

}  // namespace

class TestViewActions : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("AttentionLabTests");
    QCoreApplication::setApplicationName("test_view_actions");
  }

  void ctrlEInTheSentenceEditorOpensTheExportDialog() {
    MainWindow w(false);
    w.show();
    w.activateWindow();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
    w.sentenceEditor()->setFocus();
    QTRY_VERIFY(w.sentenceEditor()->hasFocus());
    w.sentenceEditor()->setCursorPosition(0);
    bool opened = false;
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, [&] {
      if (auto* d = qobject_cast<ExportDialog*>(QApplication::activeModalWidget())) {
        opened = true;
        d->reject();
      }
    });
    poll.start();
    QTest::keyClick(w.sentenceEditor(), Qt::Key_E, Qt::ControlModifier);
    poll.stop();
    QVERIFY(opened);
    QCOMPARE(w.sentenceEditor()->cursorPosition(), 0);  // the editor did not take it as "end of line"
  }

  void anEditorThatClaimsTheKeyLetsTheShortcutThrough() {
    for (const bool kept : {false, true}) {
      QWidget window;
      auto* editor = new EmacsLineEdit;
      auto* layout = new QVBoxLayout(&window);
      layout->addWidget(editor);
      auto* action = new QAction(&window);
      action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
      window.addAction(action);
      if (kept) ViewActions::keepShortcutsIn(editor, action);
      int triggered = 0;
      connect(action, &QAction::triggered, [&] { ++triggered; });
      window.show();
      QApplication::setActiveWindow(&window);
      QVERIFY(QTest::qWaitForWindowActive(&window));
      editor->setFocus();
      QTRY_VERIFY(editor->hasFocus());
      QTest::keyClick(editor, Qt::Key_E, Qt::ControlModifier);
      QCOMPARE(triggered, kept ? 1 : 0);  // without keepShortcutsIn the editor takes the key
    }
  }

  void everyPartOfEveryViewHasTheExportMenu() {
    MainWindow w(false);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
    QStringList missing;
    for (const QString& name : viewNames()) {
      TraceView* v = w.view(name);
      QVERIFY2(v, qPrintable(name));
      w.showView(name);
      QTRY_VERIFY2(v->isVisible() && v->width() > 0, qPrintable(name));
      QList<QWidget*> targets{deepestChildAtCentre(v)};
      for (QWidget* c : v->findChildren<QWidget*>())
        if (c->isVisible() && !qobject_cast<QMenu*>(c) && !isEditor(c)) targets << c;
      for (QWidget* t : targets) {
        const QStringList menu = contextMenuOf(t);
        if (!menu.contains("Export figure or numbers…") || !menu.contains("Copy image"))
          missing << name + " / " + t->metaObject()->className() + " " + t->objectName();
      }
    }
    QVERIFY2(missing.isEmpty(), qPrintable("no export menu on " + missing.join(", ")));
  }
};

ATTNLAB_TEST_MAIN(TestViewActions)
#include "test_view_actions.moc"
