#include "ui/shell/training_export.h"

#include <QApplication>
#include <QHeaderView>
#include <QImage>
#include <QLayout>
#include <QSplitter>
#include <QTableWidget>
#include <algorithm>

#include <qcustomplot.h>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/train/tiny_checkpoint.h"
#include "ui/shell/view_factory.h"
#include "ui/views/training/training_view.h"

namespace attnlab::ui {

QStringList exportViewNames() { return viewNames() << kTrainingExportName; }

namespace {

/// Below this figure height the score table is left out (its scores are in the maps' titles), below the next the
/// maps too: a paper column (242 px) squeezed all three panels over one another.
constexpr int kTableFromHeight = 420, kMapsFromHeight = 300;

/// A figure shows the score table in compact rows, whole when it fits in a third of the page, else cut after the
/// last whole row: the splitter's 2 : 4 : 1 left three of eight rows behind a scroll bar at a slide's size. The loss
/// curve and the maps share the rest 1 : 2. A small figure shows fewer panels instead (kTableFromHeight,
/// kMapsFromHeight).
void fitScoreTable(TrainingView* view) {
  QTableWidget* table = view->table();
  auto* splitter = qobject_cast<QSplitter*>(table->parentWidget());
  if (!splitter || splitter->count() != 3) return;
  if (view->height() < kTableFromHeight) table->hide();
  if (view->height() < kMapsFromHeight) splitter->widget(1)->hide();
  if (!table->isVisible()) return;
  table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // a figure holds no scroll bar
  // Compact rows, and a table that ends at a row: as many whole rows as a third of the page holds.
  const int rowHeight = table->fontMetrics().height() + 6;
  table->verticalHeader()->setMinimumSectionSize(rowHeight);
  for (int r = 0; r < table->rowCount(); ++r) table->setRowHeight(r, rowHeight);
  const int chrome = table->horizontalHeader()->height() + 2 * table->frameWidth();
  const QList<int> sizes = splitter->sizes();
  const int total = sizes[0] + sizes[1] + sizes[2];
  const int rowsShown = std::clamp((total / 3 - chrome) / rowHeight, 1, std::max(1, table->rowCount()));
  const int tableHeight = chrome + rowsShown * rowHeight;
  const int rest = total - tableHeight;
  splitter->setSizes({rest / 3, rest - rest / 3, tableHeight});
}

/// A fresh page (TrainingView or EncDecTrainingPanel) laid out offscreen at `size`, its controls left out, drawing
/// `run`; nullptr and `error` set when it does not start.
template <class Page, class Run>
std::unique_ptr<Page> offscreenPage(const Run& run, const QSize& size, double fontScale, QString* error) {
  auto page = std::make_unique<Page>();
  prepareOffscreen(page.get(), size);
  page->setFontScale(fontScale);
  page->show();
  // The page's own worker publishes its untrained step 0 once, from its thread: wait for it, so that it cannot
  // arrive after the run and replace it.
  if (!processEventsUntil([&page] { return page->lastUpdate() != nullptr; }, 30000)) {
    *error = QString("the Training view did not start in time");
    return nullptr;
  }
  page->showRun(run);
  return page;
}

std::unique_ptr<TrainingView> offscreenTrainingView(const TrainingUpdatePtr& run, const QSize& size, double fontScale,
                                                    QString* error) {
  auto view = offscreenPage<TrainingView>(run, size, fontScale, error);
  if (!view) return nullptr;
  fitScoreTable(view.get());
  QApplication::processEvents();  // the loss plot's queued replot
  return view;
}

/// A figure of the encoder–decoder tab gives the curves two fifths of the height under the headline and the cross
/// maps the rest (the page halves it, and the curves' on-screen minimum of 180 px left a paper column no maps at
/// all). A small figure (below kTableFromHeight) gives the curves a third and sets the headline in the body font;
/// below kMapsFromHeight the probe's token line is left out too (a caption can give it). The splitter's handle never
/// shows.
void fitEncDecFigure(EncDecTrainingPanel* panel) {
  auto* plot = panel->findChild<QCustomPlot*>();
  auto* splitter = plot ? qobject_cast<QSplitter*>(plot->parentWidget()) : nullptr;
  if (!splitter || splitter->count() != 2) return;
  if (panel->height() < kMapsFromHeight) panel->probeLabel()->hide();
  plot->setMinimumHeight(0);
  for (int i = 0; i < splitter->count(); ++i) splitter->handle(i)->setProperty(kScreenOnlyProperty, true);
  if (panel->height() < kTableFromHeight) panel->headline()->setFont(panel->font());  // two lines, not three
  panel->layout()->activate();
  const QList<int> sizes = splitter->sizes();
  const int total = sizes[0] + sizes[1];
  const int curves = panel->height() < kTableFromHeight ? total / 3 : total * 2 / 5;
  splitter->setSizes({curves, total - curves});
}

/// The format and the size checked: "" or a message.
QString requestError(const ExportRequest& r) {
  if (!exportFormats().contains(r.format))
    return QString("unknown format '%1' (use %2)").arg(r.format, exportFormats().join(", "));
  const QSize size = r.size.layoutPixels();
  if (size.width() < 50 || size.height() < 50 || size.width() > 20000 || size.height() > 20000)
    return QString("figure size %1 × %2 px is out of range (50 to 20000)").arg(size.width()).arg(size.height());
  return {};
}

}  // namespace

QString exportTraining(const TrainingUpdatePtr& run, const ExportRequest& r) {
  if (!run) return QString("nothing to export: the Training view has not drawn a run yet");
  if (const QString bad = requestError(r); !bad.isEmpty()) return bad;
  QString error;
  const auto view = offscreenTrainingView(run, r.size.layoutPixels(), r.fontScale, &error);
  if (!view) return error;
  if (isFigureFormat(r.format)) return writeFigure(view.get(), "Training", r);
  try {
    const std::string bytes =
        numbersToBytes(view->numbers(), parseNumbersFormat(r.format.toStdString()), r.matrix.toStdString());
    return writeFileBytes(r.path, bytes);
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
}

QString exportEncDecTraining(const EncDecTrainingRun& run, const ExportRequest& r) {
  if (!run.latest) return QString("nothing to export: the encoder–decoder tab has no trained model drawn");
  if (const QString bad = requestError(r); !bad.isEmpty()) return bad;
  if (!isFigureFormat(r.format)) {
    try {
      const std::string bytes = numbersToBytes(EncDecTrainingPanel::numbers(run),
                                               parseNumbersFormat(r.format.toStdString()), r.matrix.toStdString());
      return writeFileBytes(r.path, bytes);
    } catch (const InputError& e) {
      return QString::fromStdString(e.what());
    }
  }
  QString error;
  const auto panel = offscreenPage<EncDecTrainingPanel>(run, r.size.layoutPixels(), r.fontScale, &error);
  if (!panel) return error;
  fitEncDecFigure(panel.get());
  QApplication::processEvents();  // the curves' queued replot
  const EncDecSnapshot& s = run.latest->snapshot;
  return writeFigure(
      panel.get(),
      QString("Training: encoder–decoder, %1, step %2").arg(toString(run.latest->settings.task)).arg(s.step), r);
}

QImage trainingImage(const TrainingUpdatePtr& run, const QSize& size, double scale) {
  QString error;
  const auto view = run ? offscreenTrainingView(run, size, 1.0, &error) : nullptr;
  return view ? renderWidgetImage(view.get(), scale) : QImage();
}

TrainingUpdatePtr boundedTrainingRun(const TrainSettings& settings, int steps) {
  return TrainingView::trainingRun(runTraining(settings, steps), settings);
}

TrainingUpdatePtr savedTrainingRun(const QString& dir) {
  const std::string d = dir.toStdString();
  if (!isTinyCheckpoint(d))
    throw InputError(d +
                     ": not a model trained by Attention Lab (its config.json is not an attnlab-tiny model): "
                     "only the Training view's or `attnlab train --save`'s models have a training history");
  std::optional<TrainHistory> h = loadTrainHistory(d);
  if (!h)
    throw InputError(d + ": has no training history (" + trainHistoryPath(d) +
                     "); save the model again from the Training view or with `attnlab train --save`, or leave out "
                     "--model to draw a fresh run");
  TrainSettings s;
  s.task = h->task;
  s.model = tinyConfigFromJson(readJsonFile(d + "/config.json"), d);
  return TrainingView::trainingRun(*h, s);
}

}  // namespace attnlab::ui
