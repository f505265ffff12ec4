#include "ui/plots/figure_export.h"

#include <QBuffer>
#include <QImage>
#include <QLayout>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "ui/plots/view_style.h"

namespace attnlab::ui {
namespace {

/// Every figure is drawn into memory first and written by the one atomic writer: a full disk or a missing permission
/// leaves the file that was there, and the message names the path and the reason.
QString writeBytes(const QString& path, const QByteArray& bytes) {
  return writeFileBytes(path, std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

/// Paints `w` and its visible children at their positions relative to the root, except widgets
/// marked kScreenOnlyProperty (hover read-outs, hints): a figure holds nothing interactive. The page is
/// filled with the figure's background first (figureBackground: white, or the dark theme's), and widgets
/// whose background is the window's own colour (containers, labels, splitters: the platform's grey) let
/// it show through instead of painting grey corners, frames and bands; widgets with a background of their
/// own (a table's base, a swatch) keep it.
void paintTree(QCPPainter& painter, QWidget* w, const QPoint& offset) {
  if (auto* plot = qobject_cast<QCustomPlot*>(w)) {
    painter.save();
    painter.translate(offset);
    plot->toPainter(&painter, plot->width(), plot->height());
    painter.restore();
    return;  // a plot has no widget children worth drawing
  }
  // The widget itself, without children: children are drawn by the recursion so plots among them
  // go through toPainter.
  const bool windowColoured = w->backgroundRole() == QPalette::Window || w->backgroundRole() == QPalette::NoRole;
  if (windowColoured) {
    const bool fill = w->autoFillBackground();
    if (fill) w->setAutoFillBackground(false);  // a viewport or panel filled with the window's grey
    w->render(&painter, offset, QRegion(), QWidget::RenderFlags());
    if (fill) w->setAutoFillBackground(true);
  } else {
    w->render(&painter, offset, QRegion(), QWidget::RenderFlags(QWidget::DrawWindowBackground));
  }
  for (QObject* child : w->children()) {
    auto* cw = qobject_cast<QWidget*>(child);
    if (!cw || !cw->isVisible() || cw->isWindow() || cw->property(kScreenOnlyProperty).toBool()) continue;
    // Clip to the parent: a scrolled child (a tall canvas in a scroll area) shows only its visible part.
    painter.save();
    painter.setClipRect(QRect(offset, w->size()), Qt::IntersectClip);
    paintTree(painter, cw, offset + cw->pos());
    painter.restore();
  }
}

/// The page under the whole figure, then the widget tree.
void paintFigure(QCPPainter& painter, QWidget* widget) {
  painter.fillRect(QRect(QPoint(0, 0), widget->size()), figureBackground());
  paintTree(painter, widget, QPoint(0, 0));
}

QString exportPng(QWidget* widget, const QString& path, const FigureOptions& o) {
  if (!(o.pngScale > 0 && o.pngScale <= 16)) return QString("PNG scale must be in (0, 16], got %1").arg(o.pngScale);
  QImage img = renderWidgetImage(widget, o.pngScale);
  const double dpi = o.dpi > 0 ? o.dpi : 96 * o.pngScale;
  img.setDotsPerMeterX(static_cast<int>(std::lround(dpi / 0.0254)));
  img.setDotsPerMeterY(static_cast<int>(std::lround(dpi / 0.0254)));
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!img.save(&buffer, "PNG")) return QString("cannot encode '%1' as PNG").arg(path);
  return writeBytes(path, bytes);
}

QString exportSvg(QWidget* widget, const QString& path, const FigureOptions& o) {
  const QSize size = widget->size();
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  // The generator writes width/height in mm as pixels · 25.4 / resolution.
  if (!o.physicalMm.isEmpty())
    svg.setResolution(static_cast<int>(std::lround(size.width() * 25.4 / o.physicalMm.width())));
  svg.setTitle(o.title.isEmpty() ? QString("Attention Lab figure") : o.title);
  svg.setDescription("Exported by Attention Lab");
  QCPPainter painter;
  if (!painter.begin(&svg)) return QString("cannot draw the SVG of '%1'").arg(path);
  painter.setRenderHint(QPainter::LosslessImageRendering);  // images that remain stay lossless
  paintFigure(painter, widget);
  painter.end();
  if (bytes.isEmpty()) return QString("the SVG of '%1' came out empty").arg(path);
  return writeBytes(path, bytes);
}

QString exportPdf(QWidget* widget, const QString& path, const FigureOptions& o) {
  const QSize size = widget->size();
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter pdf(&buffer);
  pdf.setTitle(o.title.isEmpty() ? QString("Attention Lab figure") : o.title);
  pdf.setCreator("Attention Lab");
  pdf.setResolution(96);
  if (o.physicalMm.isEmpty())
    pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));  // one layout pixel per point
  else
    pdf.setPageSize(QPageSize(o.physicalMm, QPageSize::Millimeter));
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  QCPPainter painter;
  if (!painter.begin(&pdf)) return QString("cannot draw the PDF of '%1'").arg(path);
  // Without this hint Qt's PDF engine stores every image as JPEG (QPdfEnginePrivate::addImage).
  painter.setRenderHint(QPainter::LosslessImageRendering);
  // Fit the layout into the page, keeping the aspect ratio.
  const double s = std::min(pdf.width() / double(size.width()), pdf.height() / double(size.height()));
  painter.scale(s, s);
  paintFigure(painter, widget);
  painter.end();
  if (bytes.isEmpty()) return QString("the PDF of '%1' came out empty").arg(path);
  return writeBytes(path, bytes);
}

}  // namespace

QColor figureBackground() {
  const ViewStyle& style = ViewStyle::instance();
  return style.dark() ? style.background() : QColor(Qt::white);
}

QString writeFileBytes(const QString& path, std::string_view bytes) {
  try {
    writeFileAtomically(path.toStdString(), bytes);
    return {};
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
}

void markScreenOnly(QLayout* layout, std::initializer_list<QWidget*> keep) {
  for (int i = 0; i < layout->count(); ++i) {
    QWidget* w = layout->itemAt(i)->widget();
    if (w && std::find(keep.begin(), keep.end(), w) == keep.end()) w->setProperty(kScreenOnlyProperty, true);
  }
}

QString formatFromPath(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "png" || ext == "svg" || ext == "pdf") return ext;
  return {};
}

QSize FigureSize::layoutPixels() const {
  if (unit == Unit::Pixels) return QSize(static_cast<int>(std::lround(width)), static_cast<int>(std::lround(height)));
  return QSize(static_cast<int>(std::lround(width / 2.54 * 96)), static_cast<int>(std::lround(height / 2.54 * 96)));
}

namespace {

struct Preset {
  const char* name;
  const char* label;
  double widthCm, heightCm;
};
constexpr Preset kPresets[] = {{"slide-16x9", "Slide 16:9", 25.4, 14.29},
                               {"slide-4x3", "Slide 4:3", 25.4, 19.05},
                               {"column", "Paper column", 8.5, 6.4},
                               {"page", "Paper page width", 17.8, 11.0}};

const Preset* findPreset(const QString& name) {
  for (const Preset& p : kPresets)
    if (name == QLatin1String(p.name)) return &p;
  return nullptr;
}

}  // namespace

QStringList figurePresetNames() {
  QStringList names;
  for (const Preset& p : kPresets) names << p.name;
  return names;
}

std::optional<FigureSize> figurePreset(const QString& name, double dpi) {
  const Preset* p = findPreset(name);
  if (!p) return std::nullopt;
  return FigureSize{p->widthCm, p->heightCm, FigureSize::Unit::Centimetres, dpi};
}

QString figurePresetLabel(const QString& name) {
  const Preset* p = findPreset(name);
  if (!p) return {};
  return QString("%1 (%2 × %3 cm)").arg(p->label).arg(p->widthCm).arg(p->heightCm);
}

double FigureSize::pngScale() const { return unit == Unit::Pixels ? 1.0 : dpi / 96.0; }

QSizeF FigureSize::physicalMm() const { return unit == Unit::Pixels ? QSizeF() : QSizeF(width * 10, height * 10); }

QImage renderWidgetImage(QWidget* widget, double scale) {
  QImage img(widget->size() * scale, QImage::Format_ARGB32_Premultiplied);
  img.setDevicePixelRatio(scale);
  img.fill(figureBackground());
  {
    QCPPainter painter(&img);
    painter.setRenderHint(QPainter::Antialiasing);
    paintFigure(painter, widget);
  }
  img.setDevicePixelRatio(1);
  return img;
}

QString exportWidget(QWidget* widget, const QString& path, const QString& format, const FigureOptions& options) {
  if (widget->size().isEmpty()) return QString("cannot export '%1': the view has no size").arg(path);
  if (format == "png") return exportPng(widget, path, options);
  if (format == "svg") return exportSvg(widget, path, options);
  if (format == "pdf") return exportPdf(widget, path, options);
  return QString("unknown figure format '%1' (use png, svg or pdf)").arg(format);
}

QString exportWidget(QWidget* widget, const QString& path, const QString& format, double pngScale,
                     const QString& title) {
  FigureOptions o;
  o.pngScale = pngScale;
  o.title = title;
  return exportWidget(widget, path, format, o);
}

}  // namespace attnlab::ui
