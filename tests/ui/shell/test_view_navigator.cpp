// The view navigator as a user drives it (offscreen): every view reached by a click on its entry and
// by the keyboard (Ctrl+1…6, Ctrl+PgDown / Ctrl+PgUp, also from the sentence editor), lessons and
// sessions naming views, the view remembered across runs, presentation fonts.
#include <QLineEdit>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/main_window.h"
#include "ui/shell/view_factory.h"
#include "ui/shell/view_navigator.h"
#include "ui/shell/view_pages.h"
#include "ui/views/training/training_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// Every page in navigator order: the chapters Attention, Inside a head, Variants, Rank and spectra,
/// Depth, Prediction, Heads, Training.
const QStringList kOrder = {"heatmap",    "model",     "headview",      "compare",       "cross",      "qkv",
                            "outputs",    "variants",  "complexity",    "feature-maps",  "head-size",  "spectrum",
                            "rank-table", "rank-demo", "collapse",      "paths",         "prediction", "attribution",
                            "patching",   "heads",     "similar_heads", "head_contexts", "training"};
const QStringList kChapterStarts = {"heatmap",  "qkv",        "variants", "spectrum",
                                    "collapse", "prediction", "heads",    "training"};

}  // namespace

class TestViewNavigator : public QObject {
  Q_OBJECT

  QTemporaryDir settingsDir_;

  static ViewNavigator* nav(MainWindow& w) { return w.navigator(); }

  /// True when `name` is the page shown, its entry the selected one, and the window reports it.
  static bool shows(MainWindow& w, const QString& name) {
    QTreeWidgetItem* item = nav(w)->entry(name);
    QWidget* page = nav(w)->pages()->currentWidget();
    const bool pageShown = name == kTrainingPage ? page->isAncestorOf(w.trainingView()) && w.trainingView()->isVisible()
                                                 : page->isAncestorOf(w.view(name)) && w.view(name)->isVisible();
    const bool viewCurrent = name == kTrainingPage || w.currentView()->viewName() == name;
    return pageShown && viewCurrent && nav(w)->current() == name && nav(w)->currentItem() == item &&
           item->isSelected() && w.currentParams().selection.view == name.toStdString();
  }

  static void clickEntry(MainWindow& w, QTreeWidgetItem* item) {
    nav(w)->scrollToItem(item);
    QTest::mouseClick(nav(w)->viewport(), Qt::LeftButton, {}, nav(w)->visualItemRect(item).center());
  }

  static void showActive(MainWindow& w) {
    // A laptop's window: the offscreen test screen is 800 × 600, where a first start now fills the screen and the
    // navigator may be narrowed below its entries (as on any small screen).
    w.setWindowState(Qt::WindowNoState);
    w.resize(1400, 860);
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
  }

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("AttentionLabTests");
    QStandardPaths::setTestModeEnabled(true);  // the autosave of MainWindow(true) stays out of the home
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir_.path());
  }

  void listsEveryViewOnceInChapters() {
    MainWindow w(false);
    showActive(w);
    QCOMPARE(nav(w)->order(), kOrder);
    QStringList all = viewNames();
    all << kTrainingPage;
    all.sort();
    QStringList listed = nav(w)->order();
    listed.sort();
    QCOMPARE(listed, all);                     // a view missing from the chapter table would still be listed ("More")
    QCOMPARE(nav(w)->topLevelItemCount(), 8);  // … Prediction, Heads, Training
    QCOMPARE(nav(w)->chapter(3)->text(0), QString("Rank and spectra"));
    QVERIFY(shows(w, "heatmap"));
  }

  void everyViewIsReachableByMouse() {
    MainWindow w(false);
    showActive(w);
    w.sentenceEditor()->setFocus();
    for (const QString& name : kOrder) {
      clickEntry(w, nav(w)->entry(name));
      QVERIFY2(shows(w, name), qPrintable(name));
    }
    QVERIFY(w.sentenceEditor()->hasFocus());  // typing goes on into the sentence after a click
    // The pages count: the heatmap and the model view share one, every other view has its own.
    QCOMPARE(nav(w)->pages()->count(), int(kOrder.size()) - 1);
  }

  void chapterTitleGoesToItsFirstViewAndFolds() {
    MainWindow w(false);
    showActive(w);
    QTreeWidgetItem* depth = nav(w)->chapter(4);
    clickEntry(w, depth);
    QVERIFY(shows(w, "collapse"));
    nav(w)->collapseItem(depth);
    QVERIFY(!nav(w)->entry("paths")->parent()->isExpanded());
    // The keyboard still reaches a view in a folded chapter, and opens the chapter.
    QTest::keyClick(w.sentenceEditor(), Qt::Key_PageDown, Qt::ControlModifier);
    QVERIFY(shows(w, "paths"));
    QVERIFY(depth->isExpanded());
  }

  void arrowKeysPassOverChapterTitles() {
    MainWindow w(false);
    showActive(w);
    w.showView("cross");  // the last view of chapter 1
    nav(w)->setFocus();
    QTest::keyClick(nav(w), Qt::Key_Down);
    QVERIFY(shows(w, "qkv"));  // over "Inside a head"
    QTest::keyClick(nav(w), Qt::Key_Up);
    QVERIFY(shows(w, "cross"));
    QTest::keyClick(nav(w), Qt::Key_Home);
    QVERIFY(shows(w, "heatmap"));
  }

  void hiddenPagesGetTheLatestResultWhenShown() {
    MainWindow w(false);
    showActive(w);
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
    QTest::keyClicks(w.sentenceEditor(), " today");
    QTRY_COMPARE(int(w.controller()->lastResult()->trace().tokenCount()), 7);
    const auto outputsRows = [&w] {
      const auto plots = w.view("outputs")->findChildren<MatrixPlot*>();
      return plots.isEmpty() ? -1 : plots.front()->rows();
    };
    QCOMPARE(outputsRows(), -1);  // never shown: never drawn
    clickEntry(w, nav(w)->entry("outputs"));
    QTRY_COMPARE(outputsRows(), 7);
  }

  void ctrlNumberGoesToEachChapter() {
    MainWindow w(false);
    showActive(w);
    w.sentenceEditor()->setFocus();
    for (int i = 0; i < kChapterStarts.size(); ++i) {
      QTest::keyClick(w.sentenceEditor(), Qt::Key(Qt::Key_1 + i), Qt::ControlModifier);
      QVERIFY2(shows(w, kChapterStarts[i]), qPrintable(kChapterStarts[i]));
    }
    QTest::keyClick(w.sentenceEditor(), Qt::Key_1, Qt::ControlModifier);
    QVERIFY(shows(w, "heatmap"));
  }

  void ctrlPageDownWalksEveryViewFromTheSentenceEditor() {
    MainWindow w(false);
    showActive(w);
    w.sentenceEditor()->setFocus();
    QTRY_VERIFY(w.sentenceEditor()->hasFocus());
    const QString sentence = w.sentenceEditor()->text();
    QVERIFY(shows(w, kOrder.front()));
    for (int i = 1; i < kOrder.size(); ++i) {
      QTest::keyClick(w.sentenceEditor(), Qt::Key_PageDown, Qt::ControlModifier);
      QVERIFY2(shows(w, kOrder[i]), qPrintable(kOrder[i]));
    }
    QTest::keyClick(w.sentenceEditor(), Qt::Key_PageDown, Qt::ControlModifier);
    QVERIFY(shows(w, kOrder.front()));  // it wraps round
    QTest::keyClick(w.sentenceEditor(), Qt::Key_PageUp, Qt::ControlModifier);
    QVERIFY(shows(w, kOrder.back()));
    QTest::keyClick(w.sentenceEditor(), Qt::Key_PageUp, Qt::ControlModifier);
    QVERIFY(shows(w, kOrder[kOrder.size() - 2]));
    QVERIFY(w.sentenceEditor()->hasFocus());
    QCOMPARE(w.sentenceEditor()->text(), sentence);  // the keys never reached the editor
  }

  void showViewSelectsTheEntry() {
    MainWindow w(false);
    showActive(w);
    nav(w)->collapseItem(nav(w)->chapter(3));
    w.showView("spectrum");
    QVERIFY(shows(w, "spectrum"));
    QVERIFY(nav(w)->chapter(3)->isExpanded());
    w.showView("no-such-view");  // a lesson for a newer version: nothing changes
    QVERIFY(shows(w, "spectrum"));
  }

  void appliedParamsShowTheirView() {
    MainWindow w(false);
    showActive(w);
    Params p = w.controller()->params();
    p.selection.view = "collapse";
    w.applyParams(p);
    QVERIFY(shows(w, "collapse"));
    p.selection.view = kTrainingPage;
    w.applyParams(p);
    QVERIFY(shows(w, kTrainingPage));
    QCOMPARE(w.currentParams().selection.view, std::string(kTrainingPage));  // what a session saves
  }

  void modelEntryGivesTheModelViewTheLargerHalf() {
    MainWindow w(false);
    showActive(w);
    QSplitter* split = nav(w)->pages()->attentionSplit();
    QVERIFY(split->sizes()[0] > split->sizes()[1]);
    clickEntry(w, nav(w)->entry("model"));
    QVERIFY(shows(w, "model"));
    QVERIFY(split->sizes()[1] > split->sizes()[0]);
    QVERIFY(w.view("heatmap")->isVisible());  // the selected head stays beside all heads
    clickEntry(w, nav(w)->entry("heatmap"));
    QVERIFY(split->sizes()[0] > split->sizes()[1]);
  }

  void presentationDoublesTheFontAndElidesNothing() {
    MainWindow w(false);
    showActive(w);
    const double normal = nav(w)->font().pointSizeF();
    QTRY_VERIFY(nav(w)->width() >= nav(w)->sizeHint().width());  // it opens fitted to its entries (after a layout pass)
    w.setPresentation(true);
    QCOMPARE(nav(w)->font().pointSizeF(), 2 * normal);
    QTRY_VERIFY(nav(w)->width() >= nav(w)->sizeHint().width());
    for (int c = 0; c < nav(w)->topLevelItemCount(); ++c) {
      QTreeWidgetItem* chapter = nav(w)->chapter(c);
      QVERIFY(chapter->font(0).bold());
      QCOMPARE(chapter->font(0).pointSizeF(), 2 * normal);
      QVERIFY2(
          nav(w)->visualItemRect(chapter).width() >= QFontMetrics(chapter->font(0)).horizontalAdvance(chapter->text(0)),
          qPrintable(chapter->text(0)));
      for (int i = 0; i < chapter->childCount(); ++i) {
        QTreeWidgetItem* item = chapter->child(i);
        QVERIFY2(nav(w)->visualItemRect(item).width() >= nav(w)->fontMetrics().horizontalAdvance(item->text(0)),
                 qPrintable(item->text(0)));
      }
    }
    const int wide = nav(w)->width();
    w.setPresentation(false);
    QCOMPARE(nav(w)->font().pointSizeF(), normal);
    QTRY_VERIFY(nav(w)->width() < wide);  // back to the normal fonts' width
  }

  void lastViewIsRememberedAcrossRuns() {
    QSettings().clear();
    {
      MainWindow w(true);
      showActive(w);
      clickEntry(w, nav(w)->entry("paths"));
      QVERIFY(shows(w, "paths"));
      w.close();
    }
    {
      MainWindow w(true);
      QCOMPARE(nav(w)->current(), QString("paths"));
      w.close();
    }
    // Saved parameters that name a view show it when the navigator has nothing saved (older versions).
    QSettings().remove("navigator/view");
    {
      MainWindow w(true);
      Params p = w.controller()->params();
      p.selection.view = "rank-demo";
      w.applyParams(p);
      w.close();  // saves params/last with selection.view
    }
    QSettings().remove("navigator/view");
    MainWindow w(true);
    QCOMPARE(nav(w)->current(), QString("rank-demo"));
    w.close();
    QSettings().clear();
  }
};

ATTNLAB_TEST_MAIN(TestViewNavigator)
#include "test_view_navigator.moc"
