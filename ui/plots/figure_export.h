#pragma once
// One save helper for every view: PNG (raster, with a scale factor and a DPI), SVG and PDF (vector).
// Plots are drawn through QCustomPlot::toPainter so their lines and text stay vectors; other widgets
// draw themselves through QWidget::render onto the same painter. PDF embeds the (subset) fonts.
#include <QSizeF>
#include <QString>
#include <QWidget>
#include <initializer_list>
#include <string_view>

class QLayout;

namespace attnlab::ui {

/// Widgets of a view with this property set to true (hover hints, "click here" notes) are left out
/// of exported figures.
inline constexpr char kScreenOnlyProperty[] = "attnlabScreenOnly";

/// Marks every widget of `layout` (a row of controls and their labels) screen-only, but those in `keep`
/// (a headline that reads out the result).
void markScreenOnly(QLayout* layout, std::initializer_list<QWidget*> keep = {});

/// "png", "svg" or "pdf" from a file name's extension; empty when unknown.
QString formatFromPath(const QString& path);

struct FigureOptions {
  double pngScale = 1.0;  ///< PNG pixels per layout pixel
  double dpi = 0;         ///< PNG: resolution written into the file; 0 = 96 × pngScale
  QSizeF physicalMm;      ///< SVG/PDF: printed size in mm; empty = one layout pixel per point
  QString title;          ///< document title in SVG/PDF metadata
};

/// A figure size asked for in pixels or in centimetres, resolved to what the exporter needs.
struct FigureSize {
  enum class Unit { Pixels, Centimetres };
  double width = 1200, height = 900;
  Unit unit = Unit::Pixels;
  double dpi = 96;  ///< with centimetres: PNG pixels per inch

  /// The size the view is laid out at. Centimetres lay out at 96 px per inch, so that a 9 pt label
  /// prints at 9 pt whatever the DPI.
  QSize layoutPixels() const;
  /// PNG scale factor: 1 for pixels (the caller's own scale applies), dpi / 96 for centimetres.
  double pngScale() const;
  /// The printed size for SVG/PDF; empty for pixels.
  QSizeF physicalMm() const;
};

/// Renders `widget` (as laid out now) into `path`. Returns an empty string on success, else a
/// message naming the file and the problem.
QString exportWidget(QWidget* widget, const QString& path, const QString& format, const FigureOptions& options);
QString exportWidget(QWidget* widget, const QString& path, const QString& format, double pngScale = 1.0,
                     const QString& title = {});

/// The widget as a raster image at `scale` (clipboard, previews).
QImage renderWidgetImage(QWidget* widget, double scale);

/// Writes `bytes` to `path` through the one atomic writer (core/base/atomic_file.h): "" on success, else its message
/// (the path and the reason; the old file is left as it was).
QString writeFileBytes(const QString& path, std::string_view bytes);

}  // namespace attnlab::ui
