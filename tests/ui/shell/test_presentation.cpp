// Presentation mode (F11) as a teacher uses it: menus and the lesson heading grow with the rest,
// and leaving it gives back the window the teacher had, not a full-screen one.
#include <QDockWidget>
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

  // A lesson gives the view the room (the parameter panel and the views list fold away) and closing it brings the docks
  // back exactly; in F11 the parameter panel folds, and leaving restores it; both modes nest in either order.
  void lessonsAndPresentationFoldTheDocksAndRestoreThem() {
    MainWindow w(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* params = w.findChild<QDockWidget*>("parameters");
    auto* views = w.findChild<QDockWidget*>("navigator");
    auto* lesson = w.findChild<QDockWidget*>("lesson");
    QVERIFY(params && views && lesson);
    QVERIFY(params->isVisible() && views->isVisible() && !lesson->isVisible());
    const int paramsWidth = params->width();

    w.lessonPanel()->selectLesson(0);
    QVERIFY(lesson->isVisible());
    QVERIFY(!params->isVisible());
    QVERIFY(!views->isVisible());
    QVERIFY(lesson->width() <= w.width() / 3);
    w.closeLesson();
    QVERIFY(params->isVisible() && views->isVisible() && !lesson->isVisible());
    QTRY_COMPARE(params->width(), paramsWidth);

    w.setPresentation(true);  // F11, then a lesson, then leave F11 first
    QVERIFY(!params->isVisible() && views->isVisible());
    w.lessonPanel()->selectLesson(1);
    QVERIFY(!params->isVisible() && !views->isVisible() && lesson->isVisible());
    w.setPresentation(false);
    QVERIFY(!params->isVisible() && !views->isVisible());  // the lesson still runs
    w.closeLesson();
    QVERIFY(params->isVisible() && views->isVisible() && !lesson->isVisible());

    params->hide();  // the user's own choice survives both modes
    w.setPresentation(true);
    w.setPresentation(false);
    QVERIFY(!params->isVisible() && views->isVisible());
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
