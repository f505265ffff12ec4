#include "ui/shell/view_export.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLayout>
#include <QThread>

#include "core/base/errors.h"
#include "ui/shell/view_factory.h"
#include "ui/views/common/encdec_result.h"

namespace attnlab::ui {

QStringList exportFormats() { return {"png", "svg", "pdf", "csv", "json", "npy"}; }

bool isFigureFormat(const QString& format) { return format == "png" || format == "svg" || format == "pdf"; }

QString exportFormatFromPath(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  return exportFormats().contains(ext) ? ext : QString();
}

bool processEventsUntil(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  QApplication::processEvents();  // queued replots, results of finished jobs
  while (!done()) {
    if (clock.elapsed() > timeoutMs) return false;
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  QApplication::processEvents();
  return true;
}

bool waitUntilReady(TraceView* view, int timeoutMs) {
  return processEventsUntil([view] { return view->isReady(); }, timeoutMs);
}

void prepareOffscreen(QWidget* view, const QSize& size) {
  view->setAttribute(Qt::WA_DontShowOnScreen);
  // A figure has the size the author asked for, even below the size the view's controls would want
  // on screen (the variants and collapse views lay out wider than 640 px).
  if (view->layout()) view->layout()->setSizeConstraint(QLayout::SetNoConstraint);
  view->setMinimumSize(0, 0);
  for (QWidget* child : view->findChildren<QWidget*>())
    if (child->property(kScreenOnlyProperty).toBool()) child->hide();
  view->resize(size);
}

std::unique_ptr<TraceView> makeOffscreenView(const QString& name, const ResultPtr& result, const QSize& size,
                                             double fontScale, QString* error) {
  std::unique_ptr<TraceView> view(createView(name));
  if (!view) {
    *error = QString("unknown view '%1' (known: %2)").arg(name, viewNames().join(", "));
    return nullptr;
  }
  prepareOffscreen(view.get(), size);
  view->setFontScale(fontScale);
  view->show();  // lays the view out; offscreen, nothing appears
  view->showResult(result);
  if (!waitUntilReady(view.get())) {
    *error = QString("the view '%1' did not finish its analysis in time").arg(name);
    return nullptr;
  }
  return view;
}

QString writeViewNumbers(const TraceView* view, const ComputeResult& result, const QString& path, const QString& format,
                         const QString& matrix) {
  try {
    ViewNumbers n = view->numbers(result);
    // A view that drew a message instead of numbers (the Prediction views on a model without a
    // vocabulary) writes no empty file, in any format.
    if (n.matrices.empty()) return QString("the view '%1' has no numbers to export").arg(view->viewName());
    result.useRawTokens(n);  // files keep the vocabulary's spelling ("Ġcat"), views show "·cat"
    const std::string bytes = numbersToBytes(n, parseNumbersFormat(format.toStdString()), matrix.toStdString());
    return writeFileBytes(path, bytes);  // a half-written file never replaces a good one
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
}

QString writeViewFigure(TraceView* view, const ExportRequest& r) { return writeFigure(view, view->displayName(), r); }

QString writeFigure(QWidget* widget, const QString& title, const ExportRequest& r) {
  FigureOptions o;
  o.title = title;
  const bool cm = r.size.unit == FigureSize::Unit::Centimetres;
  o.pngScale = cm ? r.size.pngScale() : r.pngScale;
  o.dpi = cm ? r.size.dpi : r.dpi;
  o.physicalMm = r.size.physicalMm();
  return exportWidget(widget, r.path, r.format, o);
}

QString exportView(const ResultPtr& result, const ExportRequest& r) {
  if (!result || !result->ok()) return QString("nothing to export: %1").arg(result ? result->error : "no result");
  if (!exportFormats().contains(r.format))
    return QString("unknown format '%1' (use %2)").arg(r.format, exportFormats().join(", "));
  const QSize size = r.size.layoutPixels();
  if (size.width() < 50 || size.height() < 50 || size.width() > 20000 || size.height() > 20000)
    return QString("figure size %1 × %2 px is out of range (50 to 20000)").arg(size.width()).arg(size.height());
  QString error;
  const ResultPtr shown = shownStack(result);  // an encoder–decoder's chosen stack, as the window shows it
  const auto view = makeOffscreenView(r.view, shown, size, r.fontScale, &error);
  if (!view) return error;
  // selection.stack "cross" and a view of one stack: no file of the decoder passed off as cross-attention.
  if (!view->drawsCross() && !crossAbsentNote(*shown).isEmpty())
    return QString(
               "the view '%1' reads one stack and draws no cross-attention (selection.stack \"cross\"): choose "
               "\"decoder\" or one of heatmap, model, headview, qkv, outputs, spectrum, cross")
        .arg(r.view);
  // Views that run the model on other texts (a probe, a corpus) or patch one run from another: the decoder of an
  // encoder–decoder cannot run without the source, and no stack can be patched; their figure would be an empty plot
  // under a message, so no file is written.
  if (const EncDecRun* run = encDecRunOf(*shown)) {
    if (r.view == "patching")
      return QString(
          "the view 'patching' patches a run of one text from another, which is not done for an encoder–decoder's "
          "two texts: choose a single-text model");
    if (run->isDecoderSide() && (r.view == "heads" || r.view == "similar_heads" || r.view == "head_contexts"))
      return QString(
                 "the view '%1' runs the model on other texts, which the decoder of an encoder–decoder cannot do (it "
                 "reads the source's encoding): choose selection.stack \"encoder\"")
          .arg(r.view);
  }
  if (isFigureFormat(r.format)) return writeViewFigure(view.get(), r);
  return writeViewNumbers(view.get(), *shown, r.path, r.format, r.matrix);
}

ResultPtr withSelection(const ResultPtr& result, int layer, int head) {
  auto r = std::make_shared<ComputeResult>(*result);
  r->params.selection.layer = layer;
  r->params.selection.head = head;
  return r;
}

}  // namespace attnlab::ui
