#pragma once
// One save helper for every view: PNG (raster, with a scale factor and a DPI), SVG and PDF (vector).
// Plots are drawn through QCustomPlot::toPainter so their lines and text stay vectors; other widgets
// draw themselves through QWidget::render onto the same painter. PDF embeds the (subset) fonts.
#include <QColor>
#include <QSizeF>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <initializer_list>
#include <optional>
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

/// Named sizes for slides and papers (`attnlab export --preset`, the export dialog), in centimetres:
///   slide-16x9  25.4 × 14.29 cm  a 16:9 slide (PowerPoint, Keynote, Beamer's aspectratio=169 scaled up)
///   slide-4x3   25.4 × 19.05 cm  a 4:3 slide
///   column       8.5 × 6.4 cm    one column of a two-column paper; the height 3:4 of the width
///   page        17.8 × 11 cm     a full page width; the height width / 1.618, leaving room for a caption
QStringList figurePresetNames();
/// The preset's size with PNGs at `dpi`; nullopt for an unknown name.
std::optional<FigureSize> figurePreset(const QString& name, double dpi = 300);
/// What the export dialog lists for a preset: "Slide 16:9 (25.4 × 14.29 cm)"; empty for an unknown name.
QString figurePresetLabel(const QString& name);

/// Renders `widget` (as laid out now) into `path`. Returns an empty string on success, else a
/// message naming the file and the problem.
QString exportWidget(QWidget* widget, const QString& path, const QString& format, const FigureOptions& options);
QString exportWidget(QWidget* widget, const QString& path, const QString& format, double pngScale = 1.0,
                     const QString& title = {});

/// The page colour of every exported figure: white, or the dark theme's background when that theme is chosen
/// (never the platform's grey window colour).
QColor figureBackground();

/// The widget as a raster image at `scale` (clipboard, previews).
QImage renderWidgetImage(QWidget* widget, double scale);

/// Writes `bytes` to `path` through the one atomic writer (core/base/atomic_file.h): "" on success, else its message
/// (the path and the reason; the old file is left as it was).
QString writeFileBytes(const QString& path, std::string_view bytes);

}  // namespace attnlab::ui
