// Figures for slides and papers (issue 30): every export name, the Training page included, renders a white
// page without grey corners or bands; the model view fills its figure; the presets have their documented sizes
// and reach the command line; no view shows raw TeX; the head scatter colours layers in discrete steps with
// integer ticks and names the probe once.
#include <QAbstractButton>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <cmath>

#include <qcustomplot.h>

#include "core/train/tiny_checkpoint.h"
#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/export_dialog.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/training_export.h"
#include "ui/shell/view_actions.h"
#include "ui/shell/view_export.h"
#include "ui/shell/view_factory.h"
#include "ui/views/heads/atlas_labels.h"
#include "ui/views/heads/atlas_store.h"
#include "ui/views/heads/head_scatter_plot.h"
#include "ui/views/training/training_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

bool white(QRgb c) { return qRed(c) >= 250 && qGreen(c) >= 250 && qBlue(c) >= 250; }

/// "x y" of the first pixel of the image's outermost rows and columns that is not white, or "" when all are.
QString firstNonWhiteBorderPixel(const QImage& img) {
  const int w = img.width(), h = img.height();
  for (int x = 0; x < w; ++x)
    for (int y : {0, h - 1})
      if (!white(img.pixel(x, y))) return QString("%1 %2").arg(x).arg(y);
  for (int y = 0; y < h; ++y)
    for (int x : {0, w - 1})
      if (!white(img.pixel(x, y))) return QString("%1 %2").arg(x).arg(y);
  return {};
}

/// The bounding box of the pixels that are not white.
QRect inkBox(const QImage& img) {
  int left = img.width(), top = img.height(), right = -1, bottom = -1;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      if (!white(img.pixel(x, y)))
        left = std::min(left, x), right = std::max(right, x), top = std::min(top, y), bottom = std::max(bottom, y);
  return right < 0 ? QRect() : QRect(QPoint(left, top), QPoint(right, bottom));
}

/// Sub- and superscripts written as TeX: "x^{2}", "A_{ij}", and a single symbol with an underscore index
/// ("X_l", "‖A‖_F", "σ_i"; identifiers such as "previous_token" are words, not an index).
const QRegularExpression kRawTex(QStringLiteral("\\^\\{|_\\{|(?<![\\p{L}\\p{N}_])[\\p{L}‖)]_[\\p{L}\\p{N}]"));

/// Every text a reader of the view sees: labels, buttons, tooltips, and inside plots the titles, axis labels,
/// legend entries and text items.
QStringList visibleTexts(QWidget* root) {
  QStringList texts;
  QList<QWidget*> widgets = root->findChildren<QWidget*>();
  widgets << root;
  for (QWidget* w : widgets) {
    if (!w->toolTip().isEmpty()) texts << w->toolTip();
    if (auto* l = qobject_cast<QLabel*>(w)) texts << l->text();
    if (auto* b = qobject_cast<QAbstractButton*>(w)) texts << b->text();
    auto* plot = qobject_cast<QCustomPlot*>(w);
    if (!plot) continue;
    for (QCPAxisRect* r : plot->axisRects())
      for (QCPAxis* a : r->axes()) texts << a->label();
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
      if (auto* t = qobject_cast<QCPTextElement*>(e)) texts << t->text();
    for (int i = 0; i < plot->plottableCount(); ++i) texts << plot->plottable(i)->name();
    for (int i = 0; i < plot->itemCount(); ++i)
      if (auto* t = qobject_cast<QCPItemText*>(plot->item(i))) texts << t->text();
  }
  return texts;
}

TrainSettings smallRun() {
  TrainSettings s;
  s.model.layers = 2;
  s.model.heads = 2;
  s.model.dModel = 32;
  s.threads = 1;
  return s;
}

}  // namespace

class TestSlideFigures : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  ResultPtr result_;

  /// `view` (any export name) at a 16:9 slide's size (96 dpi: its layout pixels), as a PNG read back.
  QImage slidePng(const QString& view) {
    ExportRequest r;
    r.view = view;
    r.format = "png";
    r.path = dir_.filePath(view + "-slide.png");
    r.size = *figurePreset("slide-16x9", 96);
    const QString error =
        view == kTrainingExportName ? exportTraining(boundedTrainingRun(smallRun(), 20), r) : exportView(result_, r);
    if (!error.isEmpty()) qWarning("%s", qPrintable(error));
    return QImage(r.path);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("AttentionLabTests");
    QCoreApplication::setApplicationName("test_slide_figures");
    Params p;
    p.sentence = "mary gave roses to susan";
    p.model.heads = 2;
    result_ = LiveController::compute(p, nullptr, {});
    QVERIFY(result_->ok());
  }

  // Ctrl+E on the Training page exports the Training view (it wrote a grey page of the heatmap named heatmap.pdf
  // while the status bar said "Saved Attention"): the dialog, the file and the status bar name it.
  void ctrlEOnTheTrainingPageExportsTraining() {
    MainWindow w(false);
    w.resize(1280, 800);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.showView("training");
    const QString path = dir_.filePath("from-window.png");
    QString title;
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, [&] {
      if (auto* d = qobject_cast<ExportDialog*>(QApplication::activeModalWidget())) {
        title = d->windowTitle();
        d->setPath(path);
        d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
      }
    });
    poll.start();
    QTest::keyClick(&w, Qt::Key_E, Qt::ControlModifier);
    poll.stop();
    QCOMPARE(title, QString("Export training"));
    const QImage img(path);
    QVERIFY(!img.isNull());
    QVERIFY2(firstNonWhiteBorderPixel(img).isEmpty(), qPrintable(firstNonWhiteBorderPixel(img)));
    QVERIFY2(w.statusBar()->currentMessage().startsWith("Saved Training to"),
             qPrintable(w.statusBar()->currentMessage()));
  }

  // A right click on the Training page gives the export menu, as on every other view.
  void trainingPageHasTheExportMenu() {
    MainWindow w(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.showView("training");
    auto* training = w.findChild<TrainingView*>();
    QVERIFY(training);
    QStringList seen;
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, [&] {
      if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
        for (QAction* a : menu->actions()) seen << a->text();
        menu->close();
      }
    });
    poll.start();
    QWidget* target = training->headline();
    const QPoint pos = target->rect().center();
    QContextMenuEvent event(QContextMenuEvent::Mouse, pos, target->mapToGlobal(pos));
    QApplication::sendEvent(target, &event);
    poll.stop();
    QCOMPARE(seen, (QStringList{"Export figure or numbers…", "Copy image"}));
  }

  // A figure "as shown" from the window (the view itself, not an offscreen copy) has white borders too: the
  // window's grey behind the view's panels is not drawn into it.
  void figuresAsShownInTheWindowAreWhite_data() {
    QTest::addColumn<QString>("view");
    for (const char* v : {"heatmap", "variants", "collapse", "heads"}) QTest::newRow(v) << QString(v);
  }
  void figuresAsShownInTheWindowAreWhite() {
    QFETCH(QString, view);
    MainWindow w(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(w.controller()->lastResult() && w.controller()->lastResult()->ok());
    w.showView(view);
    TraceView* v = w.currentView();
    QCOMPARE(v->viewName(), view);
    QVERIFY(waitUntilReady(v));
    ExportRequest r;
    r.view = view;
    r.format = "png";
    r.path = dir_.filePath("shown-" + view + ".png");
    QCOMPARE(w.viewActions()->run(v, w.controller()->lastResult(), r, /*asShown=*/true), QString());
    const QImage img(r.path);
    QCOMPARE(img.size(), v->size());
    QVERIFY2(firstNonWhiteBorderPixel(img).isEmpty(), qPrintable(firstNonWhiteBorderPixel(img)));
  }

  void presetsHaveTheirDocumentedSizes() {
    QCOMPARE(figurePresetNames(), (QStringList{"slide-16x9", "slide-4x3", "column", "page"}));
    const auto slide = figurePreset("slide-16x9");
    QVERIFY(slide);
    QCOMPARE(slide->unit, FigureSize::Unit::Centimetres);
    QCOMPARE(slide->physicalMm(), QSizeF(254, 142.9));
    QCOMPARE(slide->layoutPixels(), QSize(960, 540));  // 10 × 5.63 inches at 96 px per inch
    QCOMPARE(figurePreset("slide-4x3")->layoutPixels(), QSize(960, 720));
    QCOMPARE(figurePreset("column")->physicalMm().width(), 85.0);
    QCOMPARE(figurePreset("page")->physicalMm().width(), 178.0);
    QVERIFY(!figurePreset("poster"));
  }

  // The dialog's presets fill in the size in centimetres and untick "as shown"; editing the size shows "custom".
  void dialogPresetsSetTheSize() {
    ExportDialog d("collapse", QSize(800, 600), {});
    QComboBox* box = nullptr;
    for (QComboBox* c : d.findChildren<QComboBox*>())
      if (c->findData("slide-16x9") >= 0) box = c;
    QVERIFY(box);
    d.setPath(dir_.filePath("dialog.pdf"));
    box->setCurrentIndex(box->findData("slide-16x9"));
    QVERIFY(!d.asShown());
    const ExportRequest r = d.request();
    QCOMPARE(r.size.unit, FigureSize::Unit::Centimetres);
    QCOMPARE(r.size.width, 25.4);
    QCOMPARE(r.size.height, 14.29);
    QCOMPARE(r.size.layoutPixels(), QSize(960, 540));
    for (QDoubleSpinBox* s : d.findChildren<QDoubleSpinBox*>())
      if (qFuzzyCompare(s->value(), 25.4)) s->setValue(20);
    QCOMPARE(box->currentData().toString(), QString());  // custom size
  }

  // Every name of --list-views on a slide: no grey corner, frame or band at the page's edge.
  void everyViewExportsWhitePages_data() {
    QTest::addColumn<QString>("view");
    for (const QString& v : exportViewNames()) QTest::newRow(qPrintable(v)) << v;
  }
  void everyViewExportsWhitePages() {
    QFETCH(QString, view);
    const QImage img = slidePng(view);
    QCOMPARE(img.size(), QSize(960, 540));
    const QString at = firstNonWhiteBorderPixel(img);
    QVERIFY2(at.isEmpty(), qPrintable(QString("%1: not white at %2").arg(view, at)));
    QVERIFY2(inkBox(img).width() > 300, "the page holds a drawing");
  }

  // The model view's grid of heads is centred in its figure and spans it, at the command line's default size and
  // on a slide (40 % of the figure was empty).
  void modelViewFillsItsFigure_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1200x900") << QSize(1200, 900);
    QTest::newRow("slide") << QSize(960, 540);
  }
  void modelViewFillsItsFigure() {
    QFETCH(QSize, size);
    ExportRequest r;
    r.view = "model";
    r.format = "png";
    r.path = dir_.filePath("model.png");
    r.size.width = size.width();
    r.size.height = size.height();
    QCOMPARE(exportView(result_, r), QString());
    const QRect ink = inkBox(QImage(r.path));
    qInfo("model view %dx%d: ink %d,%d %dx%d", size.width(), size.height(), ink.x(), ink.y(), ink.width(),
          ink.height());
    QVERIFY2(ink.width() >= 0.85 * size.width() || ink.height() >= 0.85 * size.height(),
             "the grid spans its figure in one direction");
    QVERIFY2(ink.width() >= 0.6 * size.width() && ink.height() >= 0.6 * size.height(), "and most of the other");
  }

  // The Training page exports a run: a loss curve with one point per step, the scores of every head.
  void trainingExportsARun() {
    const TrainingUpdatePtr run = boundedTrainingRun(smallRun(), 30);
    QCOMPARE(static_cast<int>(run->losses.size()), 30);
    QCOMPARE(run->snapshot.step, 30);
    ExportRequest r;
    r.view = kTrainingExportName;
    r.format = "json";
    r.path = dir_.filePath("training.json");
    QCOMPARE(exportTraining(run, r), QString());
    QFile f(r.path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto j = nlohmann::json::parse(f.readAll().toStdString());
    QCOMPARE(j["view"].get<std::string>(), std::string("training"));
    QCOMPARE(j["matrices"][0]["name"].get<std::string>(), std::string("loss"));
    QCOMPARE(j["matrices"][0]["shape"][0].get<int>(), 30);
    QCOMPARE(j["matrices"][0]["values"][0][0].get<double>(), run->losses.front().second);
    QCOMPARE(j["matrices"][1]["name"].get<std::string>(), std::string("scores"));
    QCOMPARE(j["matrices"][1]["shape"][0].get<int>(), 4);  // 2 layers × 2 heads
    // The figure draws the run: its loss plot is not an empty page.
    const QImage img = slidePng(kTrainingExportName);
    QVERIFY(!img.isNull());
    int coloured = 0;  // the loss curve's blue and the attention maps' colours
    for (int y = 0; y < img.height(); y += 2)
      for (int x = 0; x < img.width(); x += 2) {
        const QColor c = img.pixelColor(x, y);
        if (c.saturation() > 80) ++coloured;
      }
    QVERIFY2(coloured > 500, qPrintable(QString::number(coloured)));
  }

  // A model saved with its history draws that history again, loss for loss.
  void savedHistoryIsDrawnAgain() {
    const TrainSettings s = smallRun();
    const TrainHistory h = runTraining(s, 12);
    Trainer trainer(s);
    const QString model = dir_.filePath("trained");
    saveTinyModel(model.toStdString(), s.model, trainer.params());
    QVERIFY_THROWS_EXCEPTION(InputError, savedTrainingRun(model));  // no history yet: a message, not a blank
    saveTrainHistory(model.toStdString(), h);
    const TrainingUpdatePtr run = savedTrainingRun(model);
    QCOMPARE(run->losses.size(), h.losses.size());
    for (std::size_t i = 0; i < h.losses.size(); ++i) QCOMPARE(run->losses[i].second, h.losses[i].second);
    QCOMPARE(run->snapshot.scores.size(), h.final.scores.size());
    QCOMPARE(run->snapshot.attention[1][1].rows(), h.final.attention[1][1].rows());
    QVERIFY(run->snapshot.attention[1][1].isApprox(h.final.attention[1][1]));
  }

  // The window's Save model… keeps the run beside the model: what export --model draws is what the view showed.
  void theTrainingViewSavesItsHistory() {
    TrainingView view;
    QTRY_VERIFY(view.lastUpdate());
    view.stepButton()->click();
    QTRY_VERIFY(view.lastUpdate()->snapshot.step == 1);
    view.stepButton()->click();
    QTRY_VERIFY(view.lastUpdate()->snapshot.step == 2);
    const QString model = dir_.filePath("from-view");
    QCOMPARE(view.saveModel(model), QString());
    const std::optional<TrainHistory> h = loadTrainHistory(model.toStdString());
    QVERIFY(h);
    QCOMPARE(h->losses.size(), view.run()->losses.size());
    QCOMPARE(h->final.step, 2);
    QCOMPARE(savedTrainingRun(model)->losses.back().second, view.run()->losses.back().second);
  }

  // Sub- and superscripts are drawn as such: no view shows "e^{…}", "‖·‖_F" or "X_l".
  void noViewShowsRawTex_data() {
    QTest::addColumn<QString>("view");
    for (const QString& v : viewNames()) QTest::newRow(qPrintable(v)) << v;
  }
  void noViewShowsRawTex() {
    QFETCH(QString, view);
    QString error;
    const auto v = makeOffscreenView(view, result_, QSize(1200, 900), 1.0, &error);
    QVERIFY2(v, qPrintable(error));
    QStringList raw;
    for (const QString& t : visibleTexts(v.get()))
      if (t.contains(kRawTex)) raw << t;
    QVERIFY2(raw.isEmpty(), qPrintable(raw.join(" | ")));
  }

  // The head scatter coloured by layer: one colour per layer, a colour bar in as many steps with integer ticks;
  // the probe is named once.
  void headScatterColoursLayersDiscretely() {
    QString error;
    const auto v = makeOffscreenView("heads", result_, QSize(1200, 900), 1.0, &error);
    QVERIFY2(v, qPrintable(error));
    auto* plot = v->findChild<HeadScatterPlot*>();
    QVERIFY(plot);
    QCOMPARE(result_->params.atlas.colour, std::string("layer"));
    QVERIFY(plot->discreteColour());
    QCPAxis* bar = plot->colourScale()->axis();
    QCOMPARE(plot->colourScale()->gradient().levelCount(), 2);  // 2 layers
    plot->replot();
    const QVector<double> ticks = bar->tickVector();
    QVERIFY(!ticks.isEmpty());
    for (double t : ticks) QCOMPARE(t, std::round(t));
    QCOMPARE(bar->range().lower, -0.5);
    QCOMPARE(bar->range().upper, 1.5);
    // One fill colour per layer among the points' graphs.
    QSet<QRgb> fills;
    for (int i = 0; i < plot->graphCount(); ++i)
      if (plot->graph(i)->scatterStyle().brush().style() != Qt::NoBrush)
        fills.insert(plot->graph(i)->scatterStyle().brush().color().rgb());
    QCOMPARE(fills.size(), 2);
    // The probe's caption appears once among the view's labels.
    const QString caption = probeCaption(*AtlasStore::shared().atlas());
    int shown = 0;
    for (QLabel* l : v->findChildren<QLabel*>())
      if (l->text().contains(caption)) ++shown;
    QCOMPARE(shown, 1);
  }

  // The command line: --list-views names training, --help the presets, a preset sets the PNG's size, a training
  // figure is drawn from a bounded run, and mistakes are messages.
  void commandLineExportsTrainingAndPresets() {
    const AppRun list = runApp({"export", "--list-views"});
    QCOMPARE(list.code, 0);
    QVERIFY(list.out.split('\n').contains("training"));
    const AppRun help = runApp({"export", "--help"});
    QCOMPARE(help.code, 0);
    QVERIFY(help.out.contains("slide-16x9|slide-4x3|column|page"));
    QVERIFY(help.out.contains("--train-steps"));
    const QString png = dir_.filePath("cli-training.png");
    const AppRun train = runApp(
        {"export", "--view", "training", "--train-steps", "40", "--preset", "column", "--dpi", "150", "--out", png}, {},
        120000);
    QVERIFY2(train.code == 0, train.err.constData());
    const QImage img(png);
    QCOMPARE(img.size(),
             QSize(qRound(qRound(8.5 / 2.54 * 96) * 150 / 96.0), qRound(qRound(6.4 / 2.54 * 96) * 150 / 96.0)));
    const AppRun bad = runApp({"export", "--view", "heatmap", "--preset", "poster", "--out", dir_.filePath("x.png")});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.err.contains("unknown --preset 'poster'"), bad.err.constData());
    const AppRun both =
        runApp({"export", "--view", "heatmap", "--preset", "page", "--width", "400", "--out", dir_.filePath("y.png")});
    QCOMPARE(both.code, 1);
    // `attnlab train --save` keeps the run; export --model draws that run, loss for loss.
    const QString model = dir_.filePath("cli-model");
    const AppRun saved = runApp({"train", "--steps", "7", "--d-model", "16", "--heads", "2", "--save", model});
    QVERIFY2(saved.code == 0, saved.err.constData());
    const QString numbers = dir_.filePath("cli-history.json");
    const AppRun drawn = runApp({"export", "--view", "training", "--model", model, "--out", numbers});
    QVERIFY2(drawn.code == 0, drawn.err.constData());
    QFile f(numbers);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto j = nlohmann::json::parse(f.readAll().toStdString());
    QCOMPARE(j["matrices"][0]["shape"][0].get<int>(), 7);
    QCOMPARE(j["matrices"][1]["shape"][0].get<int>(), 2 * 2);  // the default 2 layers × --heads 2
    const AppRun mixed =
        runApp({"export", "--view", "training", "--model", model, "--train-steps", "9", "--out", numbers});
    QCOMPARE(mixed.code, 1);
    const AppRun noHistory = runApp({"export", "--view", "training", "--model", dir_.path(), "--out", png});
    QCOMPARE(noHistory.code, 1);
    QVERIFY2(noHistory.err.contains("not a model trained by Attention Lab"), noHistory.err.constData());
  }
};

ATTNLAB_TEST_MAIN(TestSlideFigures)
#include "test_slide_figures.moc"
