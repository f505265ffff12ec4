#include "ui/figure_export.h"

#include <QFileInfo>
#include <QImage>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <qcustomplot.h>

namespace attnlab::ui {
namespace {

/// Paints `w` and its visible children at their positions relative to the root.
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
  w->render(&painter, offset, QRegion(), QWidget::RenderFlags(QWidget::DrawWindowBackground));
  for (QObject* child : w->children()) {
    auto* cw = qobject_cast<QWidget*>(child);
    if (cw && cw->isVisible() && !cw->isWindow()) paintTree(painter, cw, offset + cw->pos());
  }
}

}  // namespace

QString formatFromPath(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "png" || ext == "svg" || ext == "pdf") return ext;
  return {};
}

QString exportWidget(QWidget* widget, const QString& path, const QString& format, double pngScale,
                     const QString& title) {
  const QSize size = widget->size();
  if (size.isEmpty()) return QString("cannot export '%1': the view has no size").arg(path);
  if (format == "png") {
    if (!(pngScale > 0 && pngScale <= 16)) return QString("PNG scale must be in (0, 16], got %1").arg(pngScale);
    QImage img(size * pngScale, QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(pngScale);
    img.fill(Qt::white);
    {
      QCPPainter painter(&img);
      painter.setRenderHint(QPainter::Antialiasing);
      paintTree(painter, widget, QPoint(0, 0));
    }
    img.setDevicePixelRatio(1);
    if (!img.save(path, "PNG")) return QString("cannot write '%1'").arg(path);
    return {};
  }
  if (format == "svg") {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title.isEmpty() ? QString("Attention Lab figure") : title);
    svg.setDescription("Exported by Attention Lab");
    QCPPainter painter;
    if (!painter.begin(&svg)) return QString("cannot write '%1'").arg(path);
    paintTree(painter, widget, QPoint(0, 0));
    painter.end();
    return QFileInfo(path).size() > 0 ? QString() : QString("writing '%1' failed").arg(path);
  }
  if (format == "pdf") {
    QPdfWriter pdf(path);
    pdf.setTitle(title.isEmpty() ? QString("Attention Lab figure") : title);
    pdf.setCreator("Attention Lab");
    pdf.setResolution(96);                                       // one widget pixel = one PDF pixel at 96 dpi
    pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));  // page sized like the view
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    QCPPainter painter;
    if (!painter.begin(&pdf)) return QString("cannot write '%1'").arg(path);
    const double s = pdf.width() / static_cast<double>(size.width());
    painter.scale(s, s);
    paintTree(painter, widget, QPoint(0, 0));
    painter.end();
    return QFileInfo(path).size() > 0 ? QString() : QString("writing '%1' failed").arg(path);
  }
  return QString("unknown figure format '%1' (use png, svg or pdf)").arg(format);
}

}  // namespace attnlab::ui
