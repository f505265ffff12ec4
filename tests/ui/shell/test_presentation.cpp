// Presentation mode (F11) as a teacher uses it: menus and the lesson heading grow with the rest,
// and leaving it gives back the window the teacher had, not a full-screen one.
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/shell/lesson_panel.h"
#include "ui/shell/main_window.h"

using namespace attnlab::ui;

class TestPresentation : public QObject {
  Q_OBJECT

  static double points(const QWidget* w) { return w->font().pointSizeF(); }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void menusGrowWithTheWindow() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const double normalBar = points(w.menuBar());
    const QList<QMenu*> menus = w.findChildren<QMenu*>();
    QVERIFY(menus.size() >= 4);  // File, Edit, View and its submenus, Lesson, Help
    std::vector<double> normal;
    for (const QMenu* m : menus) normal.push_back(points(m));
    w.setPresentation(true);
    QVERIFY(points(w.menuBar()) >= 1.5 * normalBar);
    for (int i = 0; i < menus.size(); ++i)
      QVERIFY2(points(menus[i]) >= 1.5 * normal[static_cast<std::size_t>(i)], qPrintable(menus[i]->title()));
    w.setPresentation(false);
    QCOMPARE(points(w.menuBar()), normalBar);
  }

  void lessonHeadingIsLargerThanItsText() {
    MainWindow w(false);
    auto* lessons = w.findChild<LessonPanel*>();
    QVERIFY(lessons);
    const auto* heading = lessons->findChild<QLabel*>("lessonStepTitle");
    const auto* body = lessons->findChild<QTextBrowser*>();
    QVERIFY(heading && body);
    QVERIFY(points(heading) > points(body));
    w.setPresentation(true);
    QVERIFY(points(body) >= 19);  // the text itself grew
    QVERIFY(points(heading) > points(body));
    QVERIFY(heading->font().bold());
    w.setPresentation(false);
    QVERIFY(points(heading) > points(body));
  }

  void leavingRestoresTheWindow() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setGeometry(60, 50, 900, 640);
    QApplication::processEvents();
    const QRect before = w.geometry();
    w.setPresentation(true);
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QTest::qWait(400);  // the fallback that fills the screen by hand (no window manager) has run
    w.setPresentation(false);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QTRY_COMPARE(w.geometry(), before);
  }

  void leavingKeepsAMaximisedWindowMaximised() {
    MainWindow w(false);
    w.showMaximized();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setPresentation(true);
    w.setPresentation(false);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QVERIFY(w.windowState() & Qt::WindowMaximized);
  }
};

ATTNLAB_TEST_MAIN(TestPresentation)
#include "test_presentation.moc"
