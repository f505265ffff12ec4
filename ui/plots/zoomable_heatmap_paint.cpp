// ZoomableHeatmap's drawing around the map: axes and titles, token labels, the colour bar, the token
// marks and the minimap (the map's own pixels: zoomable_heatmap.cpp and zoomable_heatmap_render.cpp).
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "ui/plots/view_style.h"
#include "ui/plots/window_shade.h"
#include "ui/plots/zoomable_heatmap.h"

namespace attnlab::ui {
namespace {

/// A round step (1, 2, 5 × 10ᵏ) of at least `minimum` cells between labels.
int niceStep(double minimum) {
  if (minimum <= 1) return 1;
  for (int p = 1;; p *= 10)
    for (int m : {1, 2, 5})
      if (m * p >= minimum) return m * p;
}

}  // namespace

void ZoomableHeatmap::setTokenMarks(const std::vector<int>& pinned, int hovered) {
  if (pinned == pins_ && hovered == hovered_) return;
  pins_ = pinned;
  hovered_ = hovered;
  update();  // drawn over the cached picture: nothing to re-render
}

void ZoomableHeatmap::setWindow(int window) {
  if (window == window_) return;
  window_ = window;
  update();  // drawn over the cached picture
}

void ZoomableHeatmap::drawWindowShade(QPainter& p, const QRect& plot) const {
  if (window_ <= 0) return;
  // The staircase of the visible rows only (≤ a few thousand corners), in cell coordinates mapped to the screen.
  const QRectF vis = visibleCells();
  const QPolygonF cells = outsideWindow(pyramid_->cols(), window_, static_cast<int>(std::floor(vis.top())),
                                        static_cast<int>(std::ceil(vis.bottom())));
  if (cells.isEmpty()) return;
  p.save();
  p.setClipRect(mapScreenRect());
  p.translate(plot.topLeft());
  p.scale(scale_, scale_);
  p.translate(-origin_);
  p.setPen(Qt::NoPen);
  p.setBrush(windowShadeColour());
  p.drawPolygon(cells);
  p.restore();
}

void ZoomableHeatmap::drawMarks(QPainter& p, const QRect& plot) const {
  // As MatrixPlot's: the hovered token's row and column a light band, pinned tokens' outlined in orange
  // over a dark line (visible on every colour map); at least 3 pixels wide when cells are smaller.
  p.save();
  p.setClipRect(mapScreenRect());
  const ViewStyle& style = ViewStyle::instance();
  const auto band = [&](int t, bool row) {
    const double at = ((row ? t - origin_.y() : t - origin_.x())) * scale_, size = std::max(scale_, 3.0);
    const double centre = at + scale_ / 2;
    return row ? QRectF(plot.left(), plot.top() + centre - size / 2, plot.width(), size)
               : QRectF(plot.left() + centre - size / 2, plot.top(), size, plot.height());
  };
  const int n = pyramid_->rows(), m = pyramid_->cols();
  if (hovered_ >= 0) {
    p.setPen(QPen(QColor(255, 255, 255, 160), style.lineWidth(1)));
    p.setBrush(QColor(255, 255, 255, 45));
    if (hovered_ < n) p.drawRect(band(hovered_, true));
    if (const int col = hoverBandColumn(); col < m) p.drawRect(band(col, false));  // the cursor's column
  }
  p.setBrush(Qt::NoBrush);
  for (const auto& [colour, width] : {std::pair{QColor(20, 20, 20), 4.0}, std::pair{QColor(0xFF, 0x5A, 0x1F), 2.2}}) {
    p.setPen(QPen(colour, style.lineWidth(width)));
    for (int t : pins_) {
      if (t >= 0 && t < n) p.drawRect(band(t, true));
      if (t >= 0 && t < m) p.drawRect(band(t, false));
    }
  }
  p.restore();
}

void ZoomableHeatmap::drawAxes(QPainter& p, const QRect& plot) const {
  const ViewStyle& style = ViewStyle::instance();
  p.setPen(QPen(style.foreground(), style.lineWidth(1)));
  if (pyramid_ && !pyramid_->empty()) p.drawRect(mapScreenRect().adjusted(-0.5, -0.5, 0.5, 0.5));
  QFont f = tickFont();
  const QFontMetrics fm(f);
  if (!title_.isEmpty()) {
    QFont t = f;
    t.setPointSizeF(f.pointSizeF() + 2);
    t.setBold(true);
    p.setFont(t);
    p.drawText(QRect(plot.center().x() - width(), 2, 2 * width(), plot.top() - 2), Qt::AlignCenter, title_);
  }
  // The axis titles just beyond the tick labels (the column ones rotated 60°).
  const int label = labelWidth();
  f.setPointSizeF(f.pointSizeF() + 1);
  p.setFont(f);
  p.drawText(
      QRect(plot.center().x() - width(), plot.bottom() + static_cast<int>(label * 0.87), 2 * width(), fm.height() + 6),
      Qt::AlignCenter, colTitle_);
  p.save();
  p.translate(std::max(4, plot.left() - label - fm.height() - 6), plot.center().y());
  p.rotate(-90);
  p.drawText(QRect(-plot.height() / 2, 0, plot.height(), fm.height() + 4), Qt::AlignCenter, rowTitle_);
  p.restore();
}

void ZoomableHeatmap::drawLabels(QPainter& p, const QRect& plot, bool rows) const {
  // Token text when a label has room every few cells; thinned further, round indices (0, 500, 1000 …).
  const QFont f = tickFont();
  const QFontMetrics fm(f);
  p.setFont(f);
  const int step = niceStep(fm.height() * 1.3 / scale_);
  const bool tokens = step <= 4;
  const QStringList& labels = rows ? rowLabels_ : colLabels_;
  const QRectF vis = visibleCells(), screen = mapScreenRect();
  const double first = rows ? vis.top() : vis.left(), last = rows ? vis.bottom() : vis.right();
  const double origin = rows ? origin_.y() : origin_.x();
  const int w = labelWidth();
  for (int i = static_cast<int>(std::ceil(first / step)) * step; i < last; i += step) {
    const double centre = i + (tokens ? 0.5 : 0.0);  // a token's label at its row's middle
    if (centre < first || centre > last) continue;
    const QString text = tokens ? shownLabel(labels, i) : QString::number(i);
    const double at = (centre - origin) * scale_;
    if (rows) {
      const double y = plot.top() + at;
      p.drawLine(QPointF(screen.left() - 4, y), QPointF(screen.left(), y));
      p.drawText(QRectF(screen.left() - 6 - w, y - fm.height() / 2.0, w, fm.height()),
                 Qt::AlignRight | Qt::AlignVCenter, text);
    } else {
      const double x = plot.left() + at;
      p.drawLine(QPointF(x, screen.bottom()), QPointF(x, screen.bottom() + 4));
      p.save();
      p.translate(x, screen.bottom() + 6);
      p.rotate(-60);  // the label runs down and to the left, ending at its tick (as MatrixPlot's)
      p.drawText(QRectF(-w, -fm.height() / 2.0, w, fm.height()), Qt::AlignRight | Qt::AlignVCenter, text);
      p.restore();
    }
  }
}

void ZoomableHeatmap::drawColorBar(QPainter& p, const QRect& plot) const {
  const auto [lo, hi] = colorRange();
  const QRectF screen = mapScreenRect();
  const QRect bar(plot.right() + 12, static_cast<int>(screen.top()), kBarWidth, static_cast<int>(screen.height()));
  if (bar.height() < 8) return;
  const auto& table = colorTable(ViewStyle::instance().resolve(ColorMap::Viridis));
  QImage strip(1, bar.height(), QImage::Format_RGB32);
  for (int y = 0; y < bar.height(); ++y) {
    const double t = 1.0 - (y + 0.5) / bar.height();  // the top is the maximum
    strip.setPixel(0, y, lookup(table, t));
  }
  p.drawImage(bar, strip);
  p.drawRect(bar);
  const QFontMetrics fm(p.font());
  const auto tick = [&](double t, const QString& text) {
    const double y = bar.bottom() - bar.height() * t;
    p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
    p.drawText(QRectF(bar.right() + 6, y - fm.height() / 2.0, 80, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, text);
  };
  const AttentionScale scale = ViewStyle::instance().attentionScale();
  if (scale == AttentionScale::Log) {  // the decades from the floor to 1, at their log positions
    const double lf = std::log10(logFloor(pyramid_->cols()));
    for (int k = static_cast<int>(std::lround(lf)); k <= 0; ++k) tick((k - lf) / -lf, decadeLabel(k));
  } else {
    for (int k = 0; k <= 4; ++k) tick(k / 4.0, QString::number(lo + (hi - lo) * k / 4, 'g', 3));
  }
  // The scale in force, read bottom to top beside the tick labels.
  p.save();
  p.translate(bar.right() + 6 + fm.horizontalAdvance("0.0000") + 4, bar.center().y());
  p.rotate(90);
  p.drawText(QRectF(-bar.height() / 2.0, -fm.height() - 2, bar.height(), fm.height() + 2), Qt::AlignCenter,
             attentionScaleBarLabel(scale));
  p.restore();
}

void ZoomableHeatmap::drawMinimap(QPainter& p) {
  const QRect box = minimapRect();
  if (box.isEmpty()) return;
  // A light halo and a dark edge: the minimap stands out over any colour of the map under it.
  p.fillRect(box.adjusted(-3, -3, 3, 3), QColor(255, 255, 255, 220));
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(QColor(40, 40, 40), 1));
  p.drawRect(box.adjusted(-4, -4, 3, 3));
  p.drawImage(box, minimapImage());
  const QRectF vis = visibleCells();
  const double k = static_cast<double>(box.width()) / pyramid_->cols();
  const QRectF view(box.topLeft() + vis.topLeft() * k, vis.size() * k);
  p.setPen(QPen(QColor(255, 255, 255), 1.5));  // the viewport: white over dark, a black edge over yellow
  p.drawRect(view.adjusted(-1, -1, 1, 1));
  p.setPen(QPen(QColor(0, 0, 0), 1));
  p.drawRect(view.adjusted(-2, -2, 2, 2));
}

}  // namespace attnlab::ui
