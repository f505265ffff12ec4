#pragma once
// Export of any view, by name, from a computed result: the figure (PNG/SVG/PDF) or the numbers behind
// it (CSV/JSON/NPY). A fresh copy of the view is laid out offscreen at the requested size, so the
// window's own views are never resized, and the command line and the GUI produce the same file.
#include <QString>
#include <functional>
#include <memory>

#include "ui/plots/figure_export.h"
#include "ui/views/common/compute_result.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

struct ExportRequest {
  QString view;          ///< export name of the view (viewNames())
  QString path;          ///< file to write
  QString format;        ///< png|svg|pdf|csv|json|npy
  FigureSize size;       ///< layout size, in pixels or centimetres
  double pngScale = 1;   ///< extra PNG multiplier (pixels); centimetres use size.dpi instead
  double dpi = 0;        ///< PNG metadata with pixel sizes; 0 = 96 × scale
  double fontScale = 1;  ///< presentation-size fonts in the figure
  QString matrix;        ///< NPY: which matrix of the view (empty: the only one, or a stack)
};

/// Every format export accepts.
QStringList exportFormats();
bool isFigureFormat(const QString& format);
/// "png", …, "npy" from the extension; empty when unknown.
QString exportFormatFromPath(const QString& path);

/// A new view named `name`, laid out offscreen at `size`, showing `result`, its background work done.
/// Returns nullptr and sets `error` for an unknown name or a view that does not finish in time.
std::unique_ptr<TraceView> makeOffscreenView(const QString& name, const ResultPtr& result, const QSize& size,
                                             double fontScale, QString* error);

/// Waits (processing events, at most `timeoutMs`) until the view's background analysis is done.
bool waitUntilReady(TraceView* view, int timeoutMs = 120000);
/// Processes events until `done()` holds; false when `timeoutMs` passed first.
bool processEventsUntil(const std::function<bool()>& done, int timeoutMs);
/// Sets `view` up to be laid out offscreen at exactly `size` (below its on-screen minimum too), its screen-only
/// widgets hidden; the caller sets its font scale and shows it.
void prepareOffscreen(QWidget* view, const QSize& size);

/// Writes `view`'s numbers for `result` in `format` (csv, json, npy). Returns an error or "".
QString writeViewNumbers(const TraceView* view, const ComputeResult& result, const QString& path, const QString& format,
                         const QString& matrix = {});

/// Writes the figure of an already laid-out view. Returns an error or "".
QString writeViewFigure(TraceView* view, const ExportRequest& request);
/// The same for any laid-out widget; `title` goes into the SVG/PDF metadata.
QString writeFigure(QWidget* widget, const QString& title, const ExportRequest& request);

/// The whole export: an offscreen view, then the figure or the numbers. Returns an error or "".
QString exportView(const ResultPtr& result, const ExportRequest& request);

/// The same result with another layer/head selected (batch export over every head: no recompute).
ResultPtr withSelection(const ResultPtr& result, int layer, int head);

}  // namespace attnlab::ui
