// Every view laid out as a class meets it: on a 1280 × 720 projector, a 1600 × 1000 laptop and a 3840 × 2160 screen
// (three offscreen screens side by side, test_layout_fits.screens.json), in a window filling the screen and in F11,
// with and without a lesson running, on a 12-word sentence with a pinned token. Fails on a window larger than its
// screen, a horizontal scroll bar, text widgets that overlap or are cut, plot titles wider than their plot, axis tick
// labels that overlap or are smaller than kMinimumLabelPixels, and legends lying on a curve. The counts per check are
// printed (the README quotes them). Two states the default window does not reach are checked on the projector too: the
// parameter panel showing a checkpoint's card, and Side by side with both runs and their difference.
#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QScreen>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "tests/harness/test_registry.h"
#include "ui/shell/lesson_panel.h"
#include "ui/shell/main_window.h"
#include "ui/shell/model_opener.h"
#include "ui/shell/sentence_editor.h"
#include "ui/shell/status_label.h"
#include "ui/shell/too_long_bar.h"
#include "ui/shell/view_navigator.h"
#include "ui/shell/view_pages.h"
#include "ui/views/attention/compare_view.h"
#include "ui/views/prediction/prediction_view.h"
#include "ui/views/prediction/resample_field.h"
#include "ui/views/training/training_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

constexpr int kMinimumLabelPixels = 9;  ///< tick labels smaller than this are unreadable on a projector

/// What one layout check found: the kind of problem and where.
struct Problem {
  QString kind, where;
};

QString describe(const QWidget* w) {
  QString name = w->metaObject()->className();
  if (!w->objectName().isEmpty()) name += "#" + w->objectName();
  if (const auto* l = qobject_cast<const QLabel*>(w)) name += " '" + l->text().left(40) + "'";
  if (const auto* b = qobject_cast<const QAbstractButton*>(w)) name += " '" + b->text().left(40) + "'";
  return name;
}

/// The text a label or button draws: a buddy label's or button's mnemonic '&' is not drawn.
QString plainText(const QWidget* w) {
  QString text;
  if (const auto* l = qobject_cast<const QLabel*>(w)) {
    if (l->textFormat() == Qt::RichText || Qt::mightBeRichText(l->text())) return {};
    text = l->text();
    if (!l->buddy()) return text;
  } else if (const auto* b = qobject_cast<const QAbstractButton*>(w)) {
    text = b->text();
  }
  return QString(text).replace(QRegularExpression("&(.)"), "\\1");
}

bool showsText(const QWidget* w) {
  if (!w->isVisible() || w->width() <= 0) return false;
  if (const auto* l = qobject_cast<const QLabel*>(w)) return !l->text().isEmpty() && l->pixmap().isNull();
  if (const auto* b = qobject_cast<const QAbstractButton*>(w)) return !b->text().isEmpty();
  return false;
}

/// The widget's rectangle in `top`'s coordinates, cut to what its ancestors up to `top` show (a label scrolled out
/// of a scroll area's viewport is not on screen).
QRect visibleRect(const QWidget* w, const QWidget* top) {
  QRect r(w->mapTo(top, QPoint(0, 0)), w->size());
  for (const QWidget* p = w->parentWidget(); p && p != top; p = p->parentWidget())
    r &= QRect(p->mapTo(top, QPoint(0, 0)), p->size());
  return r;
}

void checkWidgets(QWidget* page, const QString& where, std::vector<Problem>& out) {
  for (const QScrollBar* bar : page->findChildren<QScrollBar*>())
    if (bar->orientation() == Qt::Horizontal && bar->isVisible() && bar->maximum() > bar->minimum())
      out.push_back({"horizontal scroll bar", where + ": " + describe(bar->parentWidget())});
  std::vector<QWidget*> texts;
  for (QWidget* w : page->findChildren<QWidget*>())
    if (showsText(w) && !visibleRect(w, page).isEmpty()) texts.push_back(w);
  for (QWidget* w : texts) {
    const QString text = plainText(w);
    if (text.isEmpty()) continue;
    const auto* label = qobject_cast<const QLabel*>(w);
    if (label && label->wordWrap()) continue;
    const int need = qobject_cast<const QAbstractButton*>(w) ? w->sizeHint().width()
                                                             : w->fontMetrics().horizontalAdvance(text.split('\n')[0]);
    const int have = label ? label->contentsRect().width() : w->width();
    if (need > have + 2) out.push_back({"cut text", where + ": " + describe(w)});
  }
  for (std::size_t i = 0; i < texts.size(); ++i)
    for (std::size_t j = i + 1; j < texts.size(); ++j) {
      if (texts[i]->isAncestorOf(texts[j]) || texts[j]->isAncestorOf(texts[i])) continue;
      const QRect a = visibleRect(texts[i], page), b = visibleRect(texts[j], page);
      if (a.intersected(b).width() > 2 && a.intersected(b).height() > 2)
        out.push_back({"overlapping text", where + ": " + describe(texts[i]) + " / " + describe(texts[j])});
    }
}

/// Two neighbouring tick labels `distance` pixels apart along their axis overlap: side by side (unrotated on a
/// horizontal axis, rotated ±90° on a vertical one) when the distance is less than half their widths; otherwise
/// (parallel slanted or stacked lines of text) when the distance across the text's direction is less than a line.
bool labelsOverlap(double distance, const QSize& a, const QSize& b, double degrees, bool horizontalAxis) {
  const double r = qDegreesToRadians(degrees);
  const double across = horizontalAxis ? std::abs(std::sin(r)) : std::abs(std::cos(r));
  if (across < 0.17) return distance < (a.width() + b.width()) / 2.0 - 1;  // within 10° of side by side
  return distance * across < std::max(a.height(), b.height()) - 1;
}

QString plotTitle(QCustomPlot* plot) {
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
    if (auto* title = qobject_cast<QCPTextElement*>(e)) return title->text().left(30);
  return {};
}

void checkPlot(QCustomPlot* plot, const QString& where, std::vector<Problem>& out) {
  if (!plot->isVisible() || plot->width() < 40 || plot->height() < 40) return;
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
    if (auto* title = qobject_cast<QCPTextElement*>(e)) {
      const int need = QFontMetrics(title->font()).horizontalAdvance(title->text().split('\n')[0]);
      if (!title->text().isEmpty() && need > plot->width())
        out.push_back({"cut title", where + ": '" + title->text().left(40) + "'"});
    }
  for (QCPAxisRect* rect : plot->axisRects())
    for (QCPAxis* axis : rect->axes()) {
      if (!axis->visible()) continue;
      const int length = axis->orientation() == Qt::Horizontal ? rect->width() : rect->height();
      for (const QString& line : axis->label().split('\n'))
        if (QFontMetrics(axis->labelFont()).horizontalAdvance(line) > length + 2 && length > 20) {
          out.push_back({"cut axis title", where + ": '" + axis->label().left(40) + "'"});
          break;
        }
      if (!axis->tickLabels()) continue;
      const QVector<double> ticks = axis->tickVector();
      const QVector<QString> labels = axis->tickVectorLabels();
      if (labels.isEmpty()) continue;
      if (QFontInfo(axis->tickLabelFont()).pixelSize() < kMinimumLabelPixels)
        out.push_back({"small tick labels", QString("%1: %2 px, axis '%3'")
                                                .arg(where)
                                                .arg(QFontInfo(axis->tickLabelFont()).pixelSize())
                                                .arg(axis->label())});
      const bool horizontal = axis->orientation() == Qt::Horizontal;
      const QFontMetrics fm(axis->tickLabelFont());
      std::vector<std::pair<double, QSize>> placed;  // pixel position along the axis, label size
      for (int i = 0; i < ticks.size() && i < labels.size(); ++i)
        if (!labels[i].isEmpty() && axis->range().contains(ticks[i]))
          placed.emplace_back(axis->coordToPixel(ticks[i]), fm.size(0, labels[i]));
      std::sort(placed.begin(), placed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (std::size_t i = 1; i < placed.size(); ++i)
        if (labelsOverlap(placed[i].first - placed[i - 1].first, placed[i].second, placed[i - 1].second,
                          axis->tickLabelRotation(), horizontal)) {
          out.push_back(
              {"overlapping tick labels", QString("%1: %2 axis '%3' of '%4' (%5 px apart)")
                                              .arg(where, horizontal ? "x" : "y", axis->label(), plotTitle(plot))
                                              .arg(placed[i].first - placed[i - 1].first)});
          break;
        }
    }
  // A legend inside the plot must not lie on a curve's points.
  for (QCPAxisRect* rect : plot->axisRects()) {
    for (int i = 0; i < rect->insetLayout()->elementCount(); ++i) {
      auto* legend = qobject_cast<QCPLegend*>(rect->insetLayout()->elementAt(i));
      if (!legend || !legend->visible()) continue;
      const QRect box = legend->outerRect();
      for (int g = 0; g < plot->graphCount(); ++g) {
        QCPGraph* graph = plot->graph(g);
        if (!graph->visible()) continue;
        bool covered = false;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd() && !covered; ++it) {
          if (!std::isfinite(it->value) || !graph->keyAxis()->range().contains(it->key)) continue;
          covered = box.contains(graph->coordsToPixels(it->key, it->value).toPoint());
        }
        if (covered) {
          out.push_back({"legend on a curve", where + ": '" + graph->name() + "'"});
          break;
        }
      }
    }
  }
}

/// The 1280 × 720 screen of test_layout_fits.screens.json.
QScreen* projector() {
  for (QScreen* s : QGuiApplication::screens())
    if (s->size() == QSize(1280, 720)) return s;
  return nullptr;
}

/// `w` shown filling `sc`'s available area, as a maximised window would; false when it never appears.
bool showFilling(MainWindow& w, QScreen* sc) {
  w.setScreen(sc);
  w.setGeometry(sc->availableGeometry());
  w.show();
  return QTest::qWaitForWindowExposed(&w);
}

}  // namespace

class TestLayoutFits : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void threeScreens() { QCOMPARE(QGuiApplication::screens().size(), 3); }

  void everyViewFitsEveryScreen_data() {
    QTest::addColumn<int>("screen");
    QTest::addColumn<bool>("present");
    QTest::addColumn<bool>("lesson");
    for (int s = 0; s < 3; ++s)
      for (bool present : {false, true})
        for (bool lesson : {false, true}) {
          const QSize size = QGuiApplication::screens().value(s)->size();
          QTest::addRow("%dx%d%s%s", size.width(), size.height(), present ? " F11" : "", lesson ? " lesson" : "")
              << s << present << lesson;
        }
  }

  void everyViewFitsEveryScreen() {
    QFETCH(int, screen);
    QFETCH(bool, present);
    QFETCH(bool, lesson);
    QScreen* sc = QGuiApplication::screens().at(screen);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    if (lesson) w.lessonPanel()->selectLesson(0);
    if (present) w.setPresentation(true);
    // A sentence of 13 tokens with a pin (lesson 10's pinned "lazy" once grew the window to 1,833 px): every view
    // shows more labels than the default's six, and the heatmap its table of pinned sums.
    Params p = w.controller()->params();
    p.sentence = "red fox jumps over lazy dogs and red fox jumps over lazy";
    p.selection.pinned = {11};
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy());
    QTest::qWait(350);  // presentation mode's by-hand fill of the screen
    std::vector<Problem> problems;
    auto* pages = w.navigator()->pages();
    for (const QString& name : pages->names()) {
      w.showView(name);
      QApplication::processEvents();
      if (TraceView* v = pages->currentView()) v->waitForAnalyses();
      // A plot's layout pass may queue another (labels thinned or a legend moved for the new size): the user sees
      // the plot once they have run.
      for (int round = 0; round < 8; ++round) QApplication::processEvents();
      const QString where = name;
      if (w.frameGeometry().width() > sc->geometry().width() || w.frameGeometry().height() > sc->geometry().height())
        problems.push_back(
            {"window larger than the screen",
             QString("%1: %2 x %3").arg(where).arg(w.frameGeometry().width()).arg(w.frameGeometry().height())});
      QWidget* page = pages->currentWidget();
      checkWidgets(page, where, problems);
      for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) checkPlot(plot, where, problems);
      // ATTNLAB_LAYOUT_SHOTS=DIR: the window as each view is checked, to look at what a problem is.
      if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty())
        w.grab().save(QString("%1/%2_%3.png").arg(shots, QTest::currentDataTag(), name).replace(' ', '_'));
    }
    std::map<QString, int> counts;
    for (const Problem& p : problems) {
      ++counts[p.kind];
      qInfo().noquote() << "  " << p.kind << "—" << p.where;
    }
    for (const auto& [kind, n] : counts) qInfo().noquote() << kind << n;
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
  }

  // A first start (no saved geometry) on the projector: the window is the screen, not 1400 × 860 with its right and
  // bottom edges off it (seen under a bare X server, where no window manager shrinks it).
  void aFirstStartFitsTheProjector() {
    QScreen* projector = nullptr;
    for (QScreen* s : QGuiApplication::screens())
      if (s->size() == QSize(1280, 720)) projector = s;
    QVERIFY(projector);
    MainWindow w(false);
    w.setScreen(projector);
    w.placeForFirstStart();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(projector->availableGeometry().contains(w.frameGeometry()),
             qPrintable(QString("%1 x %2").arg(w.frameGeometry().width()).arg(w.frameGeometry().height())));
    QVERIFY(w.width() >= 1200);  // and it uses the room
  }

  // With a checkpoint open the parameter panel shows the checkpoint's card (issue 31): on the projector it fits the
  // dock (no horizontal scroll bar, no text cut or overlapping) and leaves the heatmap more of the window than the
  // built-in model's settings do.
  void theCheckpointCardFitsTheProjector() {
    QScreen* sc = projector();
    QVERIFY(sc);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
    auto* dock = w.findChild<QDockWidget*>("parameters");
    QTest::qWait(100);
    const int builtinWidth = dock->width();
    shoot(w, "card_builtin");
    Params p = w.controller()->params();
    p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/gemma3-pattern";
    w.applyParams(p);
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok() &&
                w.controller()->lastResult()->params.modelDir == p.modelDir);
    for (int round = 0; round < 8; ++round) QApplication::processEvents();
    QTest::qWait(100);
    shoot(w, "card_checkpoint");
    std::vector<Problem> problems;
    checkWidgets(dock, "parameters", problems);
    for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
    const int cardWidth = dock->width();
    qInfo("window %d x %d; parameters dock: %d px with the built-in model, %d px with the checkpoint", w.width(),
          w.height(), builtinWidth, cardWidth);
    QVERIFY(cardWidth < builtinWidth);
    // The built-in model brings its settings back, and the width they need.
    p.modelDir.clear();
    w.applyParams(p);
    QTRY_VERIFY(w.controller()->lastResult()->params.modelDir.empty());
    QTRY_COMPARE(dock->width(), builtinWidth);
    shoot(w, "card_builtin_again");
    checkWidgets(dock, "parameters, built-in again", problems);
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
  }

  // A page of text (five editor lines, then a scroll bar) in a model too short for it, on the projector in F11 with a
  // lesson: the editor, the "Keep the last N tokens" strip, the lesson and the heatmap share the 720 px without
  // cutting the strip's message or button, and the window stays on the screen (issue 31).
  void aLongTextWithTheTooLongStripFitsTheProjector() {
    QScreen* sc = projector();
    QVERIFY(sc);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    QTRY_VERIFY(w.controller()->lastResult());
    w.lessonPanel()->selectLesson(0);
    w.setPresentation(true);
    std::string text;
    for (int line = 0; line < 8; ++line) {
      for (int i = 0; i < 12; ++i) text += "w" + std::to_string((line * 12 + i) % 13) + " ";
      text += "\n";
    }
    Params p = w.controller()->params();
    p.sentence = text;
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.sentence == text);
    w.modelOpener()->open(QString(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny");
    QTRY_VERIFY(w.tooLongBar()->isVisible());
    QTest::qWait(350);  // presentation mode's by-hand fill of the screen
    for (int round = 0; round < 8; ++round) QApplication::processEvents();
    // The eight lines scroll in the editor: as many lines show as leave the view its room, at least two.
    QVERIFY2(w.sentenceEditor()->visibleLines() >= 2 && w.sentenceEditor()->visibleLines() < 5,
             qPrintable(QString::number(w.sentenceEditor()->visibleLines())));
    // The strip reads at the back of the room as the rest of the window does.
    QCOMPARE(w.tooLongBar()->findChild<QLabel*>("tooLongMessage")->font().pointSizeF(), w.font().pointSizeF());
    QCOMPARE(w.sentenceEditor()->text().toStdString(), text);  // nothing cut by the strip
    std::vector<Problem> problems;
    checkWidgets(w.tooLongBar(), "too-long strip", problems);
    checkWidgets(w.lessonPanel(), "lesson", problems);
    QWidget* page = w.navigator()->pages()->currentWidget();
    for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) checkPlot(plot, "current view", problems);
    if (w.frameGeometry().width() > sc->geometry().width() || w.frameGeometry().height() > sc->geometry().height())
      problems.push_back({"window larger than the screen",
                          QString("%1 x %2").arg(w.frameGeometry().width()).arg(w.frameGeometry().height())});
    // The strip and the editor are both whole on the screen, and the view keeps a usable height.
    const QRect shown(QPoint(0, 0), w.size());
    for (QWidget* part : {static_cast<QWidget*>(w.tooLongBar()), static_cast<QWidget*>(w.sentenceEditor())})
      if (!shown.contains(QRect(part->mapTo(&w, QPoint(0, 0)), part->size())))
        problems.push_back({"off the window", describe(part)});
    if (page->height() < 240) problems.push_back({"view squeezed", QString("%1 px high").arg(page->height())});
    shoot(w, "too_long_F11_lesson");
    for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
  }

  // Side by side with both runs and their difference on the projector, in F11 and beside a lesson: the three panes,
  // their titles and the caption fit (issue 31). The everyView test sees the view before a second text is typed.
  void sideBySideFitsTheProjector_data() {
    QTest::addColumn<bool>("present");
    QTest::addColumn<bool>("lesson");
    QTest::addColumn<bool>("ablation");
    QTest::newRow("texts") << false << false << false;
    QTest::newRow("ablation") << false << false << true;
    QTest::newRow("texts F11") << true << false << false;
    QTest::newRow("texts lesson") << false << true << false;
  }
  void sideBySideFitsTheProjector() {
    QFETCH(bool, present);
    QFETCH(bool, lesson);
    QFETCH(bool, ablation);
    QScreen* sc = projector();
    QVERIFY(sc);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    if (lesson) w.lessonPanel()->selectLesson(0);
    if (present) w.setPresentation(true);
    Params p = w.controller()->params();
    p.modelDir = "builtin:induction";
    p.sentence = "the cat sat on the mat . the cat sat on the mat";
    p.selection.layer = 1;
    p.selection.head = 2;
    if (ablation) p.prediction.ablate = {{0, 1}};
    w.applyParams(p);
    w.showView("compare");
    auto* view = static_cast<CompareView*>(w.view("compare"));
    if (ablation)
      view->setMode(CompareView::Mode::Ablation);
    else
      view->setSecondText("the dog sat on the mat . the dog sat");
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.modelDir == p.modelDir);
    QTRY_VERIFY(view->differencePlot()->isVisible());
    QTest::qWait(350);  // presentation mode's by-hand fill of the screen
    for (int round = 0; round < 8; ++round) QApplication::processEvents();
    std::vector<Problem> problems;
    QWidget* page = w.navigator()->pages()->currentWidget();
    checkWidgets(page, "compare", problems);
    for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) checkPlot(plot, "compare", problems);
    if (w.frameGeometry().width() > sc->geometry().width() || w.frameGeometry().height() > sc->geometry().height())
      problems.push_back({"window larger than the screen", "compare"});
    shoot(w, QString("compare_%1").arg(QTest::currentDataTag()).replace(' ', '_'));
    for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
  }

  // The Prediction view's resample field (issue 31) on the projector, in F11 and beside a lesson: first refused (a
  // resample text shorter than the sentence: the window's failure reaches the view, whose field shows why), then run.
  void resampleFieldFitsTheProjector_data() {
    QTest::addColumn<bool>("present");
    QTest::addColumn<bool>("lesson");
    QTest::newRow("window") << false << false;
    QTest::newRow("F11") << true << false;
    QTest::newRow("F11 lesson") << true << true;
  }
  void resampleFieldFitsTheProjector() {
    QFETCH(bool, present);
    QFETCH(bool, lesson);
    QScreen* sc = projector();
    QVERIFY(sc);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    if (lesson) w.lessonPanel()->selectLesson(0);
    if (present) w.setPresentation(true);
    w.showView("prediction");
    auto* view = static_cast<PredictionView*>(w.view("prediction"));
    Params p = w.controller()->params();
    p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";
    p.sentence = "the cat sat on the mat and the cat";
    p.prediction.ablate = {{0, 1}, {1, 2}};
    p.prediction.ablationMode = AblationMode::Resample;
    p.prediction.resampleText = "the dog ran";
    p.selection.view = "prediction";
    w.applyParams(p);
    QTRY_VERIFY(!view->resampleProblem().isEmpty());
    QVERIFY2(view->resampleProblem().contains("the resample text has"), qPrintable(view->resampleProblem()));
    const auto check = [&](const QString& where) {
      QTest::qWait(350);  // presentation mode's by-hand fill of the screen
      for (int round = 0; round < 8; ++round) QApplication::processEvents();
      std::vector<Problem> problems;
      QWidget* page = w.navigator()->pages()->currentWidget();
      checkWidgets(page, where, problems);
      if (w.frameGeometry().width() > sc->geometry().width() || w.frameGeometry().height() > sc->geometry().height())
        problems.push_back({"window larger than the screen", where});
      for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) checkPlot(plot, where, problems);
      shoot(w, QString("resample_%1_%2").arg(where, QTest::currentDataTag()).replace(' ', '_'));
      for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
      QVERIFY(view->resampleField()->isVisible());
      QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
    };
    check("refused");
    p.prediction.resampleText = "a dog ran to the red ball and a dog barked twice at the mailman";
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy() &&
                w.controller()->lastResult()->params.prediction.resampleText == p.prediction.resampleText);
    view->waitForAnalyses();
    QVERIFY2(view->resampleProblem().isEmpty(), qPrintable(view->resampleProblem()));
    check("run");
  }

  // The prediction views on a checkpoint that predicts (the everyView test's built-in model predicts nothing), with
  // no ablation, on the projector: in the window, in F11 and in F11 beside a lesson. In F11 the bars' tick labels
  // ("token  p (logit l)") and the logit lens's overlapped. gpt2_tiny (377 tokens, byte-level pieces) and a Gemma
  // checkpoint (423 tokens, SentencePiece pieces with their "▁").
  void predictionViewsFitTheProjector_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("present");
    QTest::addColumn<bool>("lesson");
    for (const char* model : {"models/gpt2_tiny", "decoders/gemma3-pattern"}) {
      QTest::addRow("%s window", model) << QString(model) << false << false;
      QTest::addRow("%s F11", model) << QString(model) << true << false;
      QTest::addRow("%s F11 lesson", model) << QString(model) << true << true;
    }
  }
  void predictionViewsFitTheProjector() {
    QFETCH(QString, model);
    QFETCH(bool, present);
    QFETCH(bool, lesson);
    QScreen* sc = projector();
    QVERIFY(sc);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    if (lesson) w.lessonPanel()->selectLesson(0);
    if (present) w.setPresentation(true);
    Params p = w.controller()->params();
    p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/" + model.toStdString();
    p.sentence = "the quick brown fox jumps over the lazy dog and the cat sat";
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult() &&
                w.controller()->lastResult()->params.modelDir == p.modelDir);
    QVERIFY2(w.controller()->lastResult()->ok(), qPrintable(w.controller()->lastResult()->error));
    QTest::qWait(350);  // presentation mode's by-hand fill of the screen
    std::vector<Problem> problems;
    for (const char* name : {"prediction", "attribution", "patching"}) {
      w.showView(name);
      QApplication::processEvents();
      if (TraceView* v = w.navigator()->pages()->currentView()) v->waitForAnalyses();
      for (int round = 0; round < 8; ++round) QApplication::processEvents();
      QWidget* page = w.navigator()->pages()->currentWidget();
      checkWidgets(page, name, problems);
      for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) checkPlot(plot, name, problems);
      if (w.frameGeometry().width() > sc->geometry().width() || w.frameGeometry().height() > sc->geometry().height())
        problems.push_back({"window larger than the screen", name});
      shoot(w, QString("predict_%1_%2").arg(QTest::currentDataTag(), name).replace(' ', '_').replace('/', '_'));
    }
    for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
  }

  // A long error in the status bar on the projector, in F11 beside a lesson: one line cut with "…" inside the
  // window, the whole message in the tooltip (the label's text stays whole), and the window no wider than the screen.
  void aLongErrorFitsTheStatusBar() {
    QScreen* sc = projector();
    QVERIFY(sc);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
    w.lessonPanel()->selectLesson(0);
    w.setPresentation(true);
    Params p = w.controller()->params();
    p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/no-such-folder/a-checkpoint-with-a-long-name-for-the-status-bar";
    w.applyParams(p);
    auto* status = w.findChild<StatusLabel*>("status");
    QVERIFY(status);
    // A failed run keeps the last valid result; the status bar says why, naming the folder.
    QTRY_VERIFY(!w.controller()->busy() && status->text().startsWith(QChar(0x26a0)));
    QVERIFY2(status->text().contains("a-checkpoint-with-a-long-name-for-the-status-bar"), qPrintable(status->text()));
    QTest::qWait(350);  // presentation mode's by-hand fill of the screen
    for (int round = 0; round < 8; ++round) QApplication::processEvents();
    shoot(w, "status_long_error_F11_lesson");
    QVERIFY2(status->fontMetrics().horizontalAdvance(status->text()) > status->width(),
             qPrintable(QString("%1 px of text in %2 px: not long enough to test")
                            .arg(status->fontMetrics().horizontalAdvance(status->text()))
                            .arg(status->width())));
    QVERIFY(status->isElided());
    QVERIFY2(status->shownText().endsWith(QChar(0x2026)), qPrintable(status->shownText()));
    QVERIFY(status->fontMetrics().horizontalAdvance(status->shownText()) <= status->contentsRect().width());
    QCOMPARE(status->toolTip(), status->text());
    const QRect inWindow(status->mapTo(&w, QPoint(0, 0)), status->size());
    QVERIFY2(
        QRect(QPoint(0, 0), w.size()).contains(inWindow),
        qPrintable(
            QString("status at %1..%2 in a %3 px window").arg(inWindow.left()).arg(inWindow.right()).arg(w.width())));
    QVERIFY2(w.frameGeometry().width() <= sc->geometry().width(),
             qPrintable(QString::number(w.frameGeometry().width())));
    // A short message again: whole, no tooltip.
    p.modelDir.clear();
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy() && !status->text().startsWith(QChar(0x26a0)));
    QVERIFY(!status->isElided());
    QVERIFY(status->toolTip().isEmpty());
  }

  // An encoder–decoder on the projector (issue 33): the source editor and the target bar above the views, in F11
  // and beside a lesson; each single-text view on the decoder, the encoder's heatmap, and the cross view drawn both
  // ways fit.
  void encoderDecoderFitsTheProjector_data() {
    QTest::addColumn<bool>("present");
    QTest::addColumn<bool>("lesson");
    QTest::addColumn<bool>("builtin");  // the built-in model's rung 7 instead of the Marian folder
    QTest::newRow("window") << false << false << false;
    QTest::newRow("F11 lesson") << true << true << false;
    QTest::newRow("rung 7") << false << false << true;
    QTest::newRow("rung 7 F11 lesson") << true << true << true;
  }
  void encoderDecoderFitsTheProjector() {
    QFETCH(bool, present);
    QFETCH(bool, lesson);
    QFETCH(bool, builtin);
    QScreen* sc = projector();
    QVERIFY(sc);
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/marian";
    QDir(tmp.path()).mkdir("marian");
    for (const char* f : {"config.json", "model.safetensors"})
      QFile::copy(QString(ATTNLAB_TEST_DATA) + "/reference/encdec/marian-spm/" + f, dir + "/" + f);
    const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/marian";
    for (const QString& f : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + f, dir + "/" + f);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    if (lesson) w.lessonPanel()->selectLesson(0);
    if (present) w.setPresentation(true);
    Params p = w.controller()->params();
    p.modelDir = builtin ? std::string() : dir.toStdString();
    if (builtin) {  // the default shape (the lesson's step set its own: d 32, one layer)
      p.model = ModelConfig{};
      p.model.mode = Mode::EncDec;
    }
    p.sentence = "the attention head looks back at earlier tokens";
    p.target = "the head looks back at the attention";
    p.selection.stack = "decoder";
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult() && w.controller()->lastResult()->ok() &&
                w.controller()->lastResult()->params.modelDir == p.modelDir &&
                w.controller()->lastResult()->run->encdec);
    QTest::qWait(350);  // presentation mode's by-hand fill of the screen
    std::vector<Problem> problems;
    const auto check = [&](const QString& shot) {
      for (int round = 0; round < 8; ++round) QApplication::processEvents();
      QWidget* page = w.navigator()->pages()->currentWidget();
      checkWidgets(page, shot, problems);
      checkWidgets(w.centralWidget(), shot + " (editors)", problems);
      for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) checkPlot(plot, shot, problems);
      if (w.frameGeometry().width() > sc->geometry().width() || w.frameGeometry().height() > sc->geometry().height())
        problems.push_back(
            {"window larger than the screen",
             QString("%1: %2 x %3").arg(shot).arg(w.frameGeometry().width()).arg(w.frameGeometry().height())});
      shoot(w, QString("encdec_%1_%2").arg(QTest::currentDataTag(), shot).replace(' ', '_'));
    };
    for (const char* view : {"heatmap", "headview", "qkv", "outputs", "spectrum", "prediction", "cross"}) {
      w.showView(view);
      if (TraceView* v = w.navigator()->pages()->currentView()) v->waitForAnalyses();
      check(view);
    }
    auto* cross = w.view("cross");
    cross->findChildren<QComboBox*>().at(0)->setCurrentIndex(1);  // the alignment lines
    check("cross_alignment");
    p.selection.stack = "encoder";
    p.selection.view = "heatmap";
    w.applyParams(p);
    QTRY_COMPARE(w.controller()->lastResult()->params.selection.stack, std::string("encoder"));
    check("heatmap_encoder");
    p.prediction.greedy = false;  // Generate N sampled: the target bar shows its seed too
    w.applyParams(p);
    check("heatmap_sampled");
    p.selection.stack = "cross";  // the cross stack in the single-text views: target rows × source columns
    w.applyParams(p);
    QTRY_COMPARE(w.controller()->lastResult()->params.selection.stack, std::string("cross"));
    for (const char* view : {"heatmap", "model", "headview", "qkv", "outputs", "spectrum", "collapse"}) {
      w.showView(view);
      if (TraceView* v = w.navigator()->pages()->currentView()) v->waitForAnalyses();
      check(QString("%1_cross").arg(view));
    }
    for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
  }

  // Side by side with nothing to compare yet, in F11 beside a lesson (issue 31 review): pane A was squeezed into a
  // third of the page, its axis title cut to "1/4 l…", and the caption repeated the empty pane's prompt. Pane A takes
  // the room, its title fits, the prompt is said once.
  void sideBySideAloneGivesTheWindowsPaneTheRoom() {
    QScreen* sc = projector();
    QVERIFY(sc);
    MainWindow w(false);
    QVERIFY(showFilling(w, sc));
    w.lessonPanel()->selectLesson(0);
    w.setPresentation(true);
    Params p = w.controller()->params();
    p.sentence = "red fox jumps over lazy dogs and red fox jumps over lazy";
    w.applyParams(p);
    w.showView("compare");
    auto* view = static_cast<CompareView*>(w.view("compare"));
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.sentence == p.sentence);
    QTest::qWait(350);  // presentation mode's by-hand fill of the screen
    for (int round = 0; round < 8; ++round) QApplication::processEvents();
    shoot(w, "compare_alone_F11_lesson");
    QWidget* page = w.navigator()->pages()->currentWidget();
    QVERIFY(view->leftPlot()->isVisible());
    QVERIFY(!view->findChild<QLabel*>("rightMessage")->isVisible());
    QVERIFY(!view->findChild<QLabel*>("differenceMessage")->isVisible());
    QVERIFY2(view->leftPlot()->width() > page->width() * 3 / 4,
             qPrintable(QString("pane A %1 px of %2").arg(view->leftPlot()->width()).arg(page->width())));
    const QString title = view->leftPlot()->xAxis->label();
    QVERIFY2(title.startsWith("key") && !title.contains(QChar(0x2026)), qPrintable(title));
    QCOMPARE(view->caption()->text().count("Type a second text"), 1);
    std::vector<Problem> problems;
    checkWidgets(page, "compare", problems);
    for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) checkPlot(plot, "compare", problems);
    for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
    QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
    // A second text: the three panes again.
    view->setSecondText("the dog sat on the mat");
    QTRY_VERIFY(view->differencePlot()->isVisible() && view->rightPlot()->isVisible());
  }

  // The Training view's encoder–decoder tab after 400 steps of reversal (its cross maps anti-diagonal), on the
  // 1280 × 720 screen and in F11 beside a lesson: nothing cut, no plot problems.
  void encDecTrainingFitsTheProjector() {
    QScreen* sc = projector();
    QVERIFY(sc);
    for (bool present : {false, true}) {
      MainWindow w(false);
      QVERIFY(showFilling(w, sc));
      if (present) w.lessonPanel()->selectLesson(0), w.setPresentation(true);
      w.showView(kTrainingPage);
      TrainingView* t = w.trainingView();
      t->tabs()->setCurrentWidget(t->encDecPanel());
      EncDecTrainingPanel* p = t->encDecPanel();
      QTRY_VERIFY(p->lastUpdate() && p->lastUpdate()->snapshot.step == 0);
      p->stepsBox()->setValue(400);
      QTest::mouseClick(p->trainButton(), Qt::LeftButton);
      QTRY_VERIFY_WITH_TIMEOUT(p->lastUpdate()->snapshot.step == 400 && p->trainButton()->text() == "Train", 120000);
      QTest::qWait(350);  // presentation mode's by-hand fill of the screen
      for (int round = 0; round < 8; ++round) QApplication::processEvents();
      shoot(w, present ? "training_encdec_F11_lesson" : "training_encdec");
      if (present) {  // the one-text tab beside it, as the tabs on the side leave it
        t->tabs()->setCurrentIndex(0);
        for (int round = 0; round < 8; ++round) QApplication::processEvents();
        shoot(w, "training_one_text_F11_lesson");
        t->tabs()->setCurrentWidget(p);
        for (int round = 0; round < 8; ++round) QApplication::processEvents();
      }
      std::vector<Problem> problems;
      if (w.frameGeometry().width() > sc->geometry().width() || w.frameGeometry().height() > sc->geometry().height())
        problems.push_back({"window larger than the screen", QString("training (encoder–decoder): %1 x %2")
                                                                 .arg(w.frameGeometry().width())
                                                                 .arg(w.frameGeometry().height())});
      checkWidgets(p, "training (encoder–decoder)", problems);
      for (QCustomPlot* plot : p->findChildren<QCustomPlot*>()) checkPlot(plot, "training (encoder–decoder)", problems);
      for (const Problem& q : problems) qInfo().noquote() << "  " << q.kind << "—" << q.where;
      QVERIFY2(problems.empty(), qPrintable(QString("%1 layout problems").arg(problems.size())));
      if (present) continue;
      // Use in views: the window opens the trained model and shows its cross-attention.
      QTest::mouseClick(p->useButton(), Qt::LeftButton);
      QTRY_VERIFY_WITH_TIMEOUT(
          w.controller()->lastResult() && w.controller()->lastResult()->ok() &&
              w.controller()->lastResult()->params.modelDir.find("reverse-encdec") != std::string::npos,
          30000);
      QCOMPARE(w.navigator()->current(), QString("cross"));
      Params q = w.controller()->params();
      q.selection.view = "cross";
      q.sentence = "a b c d e f";
      q.target = "f e d c b a";
      w.applyParams(q);
      QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.target == q.target);
      for (int round = 0; round < 8; ++round) QApplication::processEvents();
      shoot(w, "training_encdec_used_in_views");
    }
  }

 private:
  static void shoot(QWidget& w, const QString& name) {
    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty())
      w.grab().save(QString("%1/%2.png").arg(shots, name));
  }
};

ATTNLAB_TEST_MAIN(TestLayoutFits)
#include "test_layout_fits.moc"
