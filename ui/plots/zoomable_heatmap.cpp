#include "ui/plots/zoomable_heatmap.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <vector>

#include "ui/plots/view_style.h"

namespace attnlab::ui {
namespace {

constexpr int kMinimapSide = 140;  ///< the minimap's long side in pixels
constexpr int kBarWidth = 14;

/// Tick label size as MatrixPlot's: 8 pt at 300 px growing to 12 pt at 900 px, within [7, 12.5].
double tickPointSize(int side) { return std::clamp(8.0 + 4.0 * (side - 300) / 600.0, 7.0, 12.5); }

/// A level's cells as the renderer reads them: `data` holds rows [r0, …) and columns [c0, …) of the
/// level, `stride` floats apart.
struct LevelSource {
  const float* data = nullptr;
  Eigen::Index stride = 0;
  int r0 = 0, c0 = 0;
  float at(int r, int c) const { return data[(r - r0) * stride + (c - c0)]; }
};

/// For each of `pixels` screen pixels along one axis, the level cells [lo, hi] it covers (lo > hi:
/// off the map). `origin`: the map coordinate at pixel 0; `scale`: pixels per map cell; `cell`: map
/// cells per level cell. Zoomed in (a cell ≥ 1 pixel) a pixel takes the cell under its centre, so
/// cells stay crisp blocks.
void pixelRanges(int pixels, double origin, double scale, int cell, int cells, std::vector<int>& lo,
                 std::vector<int>& hi) {
  lo.assign(static_cast<std::size_t>(pixels), 0);
  hi.assign(static_cast<std::size_t>(pixels), -1);
  for (int x = 0; x < pixels; ++x) {
    int a, b;
    if (scale * cell >= 1) {
      a = b = static_cast<int>(std::floor((origin + (x + 0.5) / scale) / cell));
    } else {
      a = static_cast<int>(std::floor((origin + x / scale) / cell));
      b = static_cast<int>(std::ceil((origin + (x + 1) / scale) / cell)) - 1;
    }
    lo[static_cast<std::size_t>(x)] = std::max(a, 0);
    hi[static_cast<std::size_t>(x)] = std::min(b, cells - 1);
  }
}

/// The colour table's entry for t ∈ [0, 1] (clamped), as renderPixels picks it.
QRgb lookup(const std::vector<QRgb>& table, double t) {
  const int top = static_cast<int>(table.size()) - 1;
  return table[static_cast<std::size_t>(std::clamp(static_cast<int>(t * top + 0.5), 0, top))];
}

/// Paints `image` (one pixel per screen pixel): each pixel the max or mean of the level cells it covers.
void renderPixels(QImage& image, const LevelSource& src, const std::vector<int>& rowLo, const std::vector<int>& rowHi,
                  const std::vector<int>& colLo, const std::vector<int>& colHi, bool mean, double lo, double hi,
                  const std::vector<QRgb>& table, QRgb background) {
  const int w = image.width(), h = image.height();
#pragma omp parallel for schedule(static) if (w * h > 1 << 15)
  for (int y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
    const int r0 = rowLo[static_cast<std::size_t>(y)], r1 = rowHi[static_cast<std::size_t>(y)];
    for (int x = 0; x < w; ++x) {
      const int c0 = colLo[static_cast<std::size_t>(x)], c1 = colHi[static_cast<std::size_t>(x)];
      if (r0 > r1 || c0 > c1) {
        line[x] = background;
        continue;
      }
      float v = mean ? 0.0f : src.at(r0, c0);
      for (int r = r0; r <= r1; ++r)
        for (int c = c0; c <= c1; ++c) v = mean ? v + src.at(r, c) : std::max(v, src.at(r, c));
      if (mean) v /= static_cast<float>((r1 - r0 + 1) * (c1 - c0 + 1));
      line[x] = lookup(table, (v - lo) / (hi - lo));
    }
  }
}

/// A round step (1, 2, 5 × 10ᵏ) of at least `minimum` cells between labels.
int niceStep(double minimum) {
  if (minimum <= 1) return 1;
  for (int p = 1;; p *= 10)
    for (int m : {1, 2, 5})
      if (m * p >= minimum) return m * p;
}

}  // namespace

ZoomableHeatmap::ZoomableHeatmap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, [this] {
    minimapValid_ = false;
    invalidate();
  });
}

void ZoomableHeatmap::setPyramid(std::shared_ptr<const MapPyramid> pyramid, const QStringList& rowLabels,
                                 const QStringList& colLabels) {
  const bool sameShape =
      pyramid && pyramid_ && pyramid->rows() == pyramid_->rows() && pyramid->cols() == pyramid_->cols();
  pyramid_ = std::move(pyramid);
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  window_.resize(0, 0);
  windowCells_ = {};
  minimapValid_ = false;
  if (!sameShape) resetView();  // another head of the same sentence keeps the zoom
  clampOrigin();
  invalidate();
}

void ZoomableHeatmap::setTitle(const QString& title) {
  title_ = title;
  update();
}

void ZoomableHeatmap::setAxisTitles(const QString& rows, const QString& cols) {
  rowTitle_ = rows;
  colTitle_ = cols;
  update();
}

void ZoomableHeatmap::setPooling(Pooling pooling) {
  if (pooling == pooling_) return;
  pooling_ = pooling;
  minimapValid_ = false;
  invalidate();
}

void ZoomableHeatmap::setGroupMax(double max) {
  groupMax_ = max;
  minimapValid_ = false;
  invalidate();
}

void ZoomableHeatmap::setFontScale(double scale) {
  fontScale_ = scale;
  resizeEvent(nullptr);  // the margins follow the fonts
}

std::pair<double, double> ZoomableHeatmap::colorRange() const {
  // MatrixPlot's Range::UnitInterval: weights in [0, 1]; per-map and shared stretch over a smaller max.
  const AttentionScale scale = ViewStyle::instance().attentionScale();
  double hi = 1;
  if (scale == AttentionScale::PerMap || (scale == AttentionScale::Shared && groupMax_ <= 0))
    hi = pyramid_ && !pyramid_->empty() ? pyramid_->maxValue() : 1;
  else if (scale == AttentionScale::Shared)
    hi = groupMax_;
  return {0.0, std::max(hi, 1e-6)};
}

QRgb ZoomableHeatmap::colorOf(double value) const {
  const auto [lo, hi] = colorRange();
  return lookup(colorTable(ViewStyle::instance().resolve(ColorMap::Viridis)), (value - lo) / (hi - lo));
}

QFont ZoomableHeatmap::tickFont() const {
  QFont f = font();
  f.setPointSizeF(tickPointSize(std::min(width(), height())) * fontScale_);
  return f;
}

QRect ZoomableHeatmap::plotRect() const {
  const QFontMetrics fm(tickFont());
  const int line = fm.height();
  const int label = fm.averageCharWidth() * 14 + 6;  // labels are cut at 14 characters
  const int top = title_.isEmpty() ? 8 : line + 14;
  const int left = label + line + 8;
  const int bottom = static_cast<int>(label * 0.87) + line + 8;  // labels rotated 60°
  const int right = kBarWidth + 16 + fm.horizontalAdvance("0.0000") + 8;
  return QRect(left, top, std::max(1, width() - left - right), std::max(1, height() - top - bottom));
}

double ZoomableHeatmap::fitScale() const {
  if (!pyramid_ || pyramid_->empty()) return 1;
  const QRect plot = plotRect();
  return std::min(static_cast<double>(plot.width()) / pyramid_->cols(),
                  static_cast<double>(plot.height()) / pyramid_->rows());
}

void ZoomableHeatmap::clampOrigin() {
  if (!pyramid_ || pyramid_->empty()) return;
  const QRect plot = plotRect();
  // Along each axis: a map narrower than the view is centred, a wider one never shows past its edges.
  const auto clampAxis = [](double origin, double viewCells, int cells) {
    if (viewCells >= cells) return -(viewCells - cells) / 2;
    return std::clamp(origin, 0.0, cells - viewCells);
  };
  origin_.setX(clampAxis(origin_.x(), plot.width() / scale_, pyramid_->cols()));
  origin_.setY(clampAxis(origin_.y(), plot.height() / scale_, pyramid_->rows()));
}

void ZoomableHeatmap::invalidate() {
  imageValid_ = false;
  update();
  emit viewChanged();
}

void ZoomableHeatmap::zoomBy(double factor, const QPointF& anchor) {
  const QPointF at = anchor - plotRect().topLeft();
  const QPointF cell = origin_ + at / scale_;
  const double fit = fitScale();
  scale_ = std::clamp(scale_ * factor, fit, std::max(fit, kMaxPixelsPerCell));
  fitted_ = scale_ <= fit;
  origin_ = cell - at / scale_;
  clampOrigin();
  invalidate();
}

void ZoomableHeatmap::panBy(const QPointF& delta) {
  origin_ -= delta / scale_;
  clampOrigin();
  invalidate();
}

void ZoomableHeatmap::centreOn(const QPointF& cell) {
  const QRect plot = plotRect();
  origin_ = cell - QPointF(plot.width(), plot.height()) / (2 * scale_);
  clampOrigin();
  invalidate();
}

void ZoomableHeatmap::resetView() {
  scale_ = fitScale();
  fitted_ = true;
  origin_ = {};
  clampOrigin();
  invalidate();
}

QRectF ZoomableHeatmap::visibleCells() const {
  if (!pyramid_ || pyramid_->empty()) return {};
  const QRect plot = plotRect();
  const QRectF view(origin_, QSizeF(plot.width() / scale_, plot.height() / scale_));
  return view.intersected(QRectF(0, 0, pyramid_->cols(), pyramid_->rows()));
}

QRectF ZoomableHeatmap::mapScreenRect() const {
  const QRectF cells = visibleCells();
  const QRect plot = plotRect();
  return QRectF(plot.topLeft() + (cells.topLeft() - origin_) * scale_, cells.size() * scale_);
}

int ZoomableHeatmap::drawnLevel() const { return pyramid_ ? pyramid_->levelFor(scale_) : 0; }

bool ZoomableHeatmap::cellAt(const QPointF& pos, int* row, int* col) const {
  if (!pyramid_ || pyramid_->empty() || !plotRect().contains(pos.toPoint())) return false;
  const QPointF cell = origin_ + (pos - plotRect().topLeft()) / scale_;
  *col = static_cast<int>(std::floor(cell.x()));
  *row = static_cast<int>(std::floor(cell.y()));
  return *row >= 0 && *row < pyramid_->rows() && *col >= 0 && *col < pyramid_->cols();
}

const QImage& ZoomableHeatmap::mapImage() {
  const QRect plot = plotRect();
  if (imageValid_ && image_.size() == plot.size()) return image_;
  image_ = QImage(plot.size(), QImage::Format_RGB32);
  const QRgb background = ViewStyle::instance().background().rgb();
  if (!pyramid_ || pyramid_->empty()) {
    image_.fill(background);
    imageValid_ = true;
    return image_;
  }
  const int level = drawnLevel(), cell = 1 << level;
  std::vector<int> rowLo, rowHi, colLo, colHi;
  pixelRanges(plot.height(), origin_.y(), scale_, cell, pyramid_->levelRows(level), rowLo, rowHi);
  pixelRanges(plot.width(), origin_.x(), scale_, cell, pyramid_->levelCols(level), colLo, colHi);
  LevelSource src;
  if (pyramid_->hasLevel(level)) {
    const MapLevel& m = pyramid_->level(level, pooling_);
    src = {m.data(), m.cols(), 0, 0};
  } else {
    // Full resolution without level 0: the visible cells (and a margin, so that short pans read
    // nothing) through the producer, kept until the view leaves them.
    const QRectF vis = visibleCells();
    const QRect need(
        QPoint(static_cast<int>(std::floor(vis.left())), static_cast<int>(std::floor(vis.top()))),
        QPoint(static_cast<int>(std::ceil(vis.right())) - 1, static_cast<int>(std::ceil(vis.bottom())) - 1));
    if (!windowCells_.contains(need)) {
      const QRect all(0, 0, pyramid_->cols(), pyramid_->rows());
      windowCells_ = need.adjusted(-need.width() / 4, -need.height() / 4, need.width() / 4, need.height() / 4) & all;
      pyramid_->readWindow(windowCells_.top(), windowCells_.height(), windowCells_.left(), windowCells_.width(),
                           window_);
    }
    src = {window_.data(), window_.cols(), windowCells_.top(), windowCells_.left()};
  }
  const auto [lo, hi] = colorRange();
  const auto& table = colorTable(ViewStyle::instance().resolve(ColorMap::Viridis));
  renderPixels(image_, src, rowLo, rowHi, colLo, colHi, pooling_ == Pooling::Mean, lo, hi, table, background);
  imageValid_ = true;
  return image_;
}

const QImage& ZoomableHeatmap::minimapImage() {
  if (minimapValid_) return minimap_;
  minimapValid_ = true;
  minimap_ = QImage();
  if (!pyramid_ || pyramid_->empty()) return minimap_;
  // The finest level that fits the minimap with cells ≥ 1 pixel (the coarsest is ≤ 64 on its long side).
  int level = pyramid_->levelCount() - 1;
  while (level > 0 && std::max(pyramid_->levelRows(level - 1), pyramid_->levelCols(level - 1)) <= kMinimapSide &&
         pyramid_->hasLevel(level - 1))
    --level;
  const MapLevel& m = pyramid_->level(level, pooling_);
  const auto [lo, hi] = colorRange();
  const auto& table = colorTable(ViewStyle::instance().resolve(ColorMap::Viridis));
  minimap_ = QImage(static_cast<int>(m.cols()), static_cast<int>(m.rows()), QImage::Format_RGB32);
  for (int r = 0; r < m.rows(); ++r) {
    auto* line = reinterpret_cast<QRgb*>(minimap_.scanLine(r));
    for (int c = 0; c < m.cols(); ++c) line[c] = lookup(table, (m(r, c) - lo) / (hi - lo));
  }
  return minimap_;
}

QRect ZoomableHeatmap::minimapRect() const {
  if (!pyramid_ || pyramid_->empty()) return {};
  const QRectF vis = visibleCells();
  if (vis.width() >= pyramid_->cols() && vis.height() >= pyramid_->rows()) return {};
  const QRect plot = plotRect();
  const double side = std::min<double>(kMinimapSide, std::min(plot.width(), plot.height()) / 3.0);
  const double k = side / std::max(pyramid_->rows(), pyramid_->cols());
  const QSize size(std::max(4, static_cast<int>(pyramid_->cols() * k)),
                   std::max(4, static_cast<int>(pyramid_->rows() * k)));
  return QRect(plot.bottomRight() - QPoint(size.width() + 8, size.height() + 8), size);
}

void ZoomableHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const ViewStyle& style = ViewStyle::instance();
  p.fillRect(rect(), style.background());
  const QRect plot = plotRect();
  p.drawImage(plot.topLeft(), mapImage());
  drawAxes(p, plot);
  if (pyramid_ && !pyramid_->empty()) {
    drawLabels(p, plot, true);
    drawLabels(p, plot, false);
    drawColorBar(p, plot);
    drawMinimap(p);
  }
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
    p.drawText(QRect(0, 2, width(), plot.top() - 2), Qt::AlignCenter, title_);
  }
  f.setPointSizeF(f.pointSizeF() + 1);
  p.setFont(f);
  p.drawText(QRect(0, height() - fm.height() - 8, width(), fm.height() + 6), Qt::AlignCenter, colTitle_);
  p.save();
  p.translate(4, plot.center().y());
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
  const int w = fm.averageCharWidth() * 14;
  for (int i = static_cast<int>(std::ceil(first / step)) * step; i < last; i += step) {
    if (i < first - 0.5) continue;
    QString text = tokens ? labels.value(i, QString::number(i)) : QString::number(i);
    if (text.size() > 14) text = text.left(13) + QChar(0x2026);
    const double at = (i + (tokens ? 0.5 : 0.0) - origin) * scale_;
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
  for (int k = 0; k <= 4; ++k) {
    const double v = lo + (hi - lo) * k / 4, y = bar.bottom() - bar.height() * k / 4.0;
    p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
    p.drawText(QRectF(bar.right() + 6, y - fm.height() / 2.0, 80, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               QString::number(v, 'g', 3));
  }
}

void ZoomableHeatmap::drawMinimap(QPainter& p) {
  const QRect box = minimapRect();
  if (box.isEmpty()) return;
  p.drawImage(box, minimapImage());
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(ViewStyle::instance().foreground(), 1));
  p.drawRect(box.adjusted(-1, -1, 0, 0));
  const QRectF vis = visibleCells();
  const double k = static_cast<double>(box.width()) / pyramid_->cols();
  const QRectF view(box.topLeft() + vis.topLeft() * k, vis.size() * k);
  p.setPen(QPen(QColor(255, 255, 255), 1.5));  // the viewport: white over dark, a black edge over yellow
  p.drawRect(view.adjusted(-1, -1, 1, 1));
  p.setPen(QPen(QColor(0, 0, 0), 1));
  p.drawRect(view.adjusted(-2, -2, 2, 2));
}

void ZoomableHeatmap::minimapMove(const QPointF& pos) {
  const QRect box = minimapRect();
  if (box.isEmpty()) return;
  const double k = static_cast<double>(box.width()) / pyramid_->cols();
  centreOn((pos - box.topLeft()) / k);
}

void ZoomableHeatmap::resizeEvent(QResizeEvent*) {
  if (fitted_ || scale_ < fitScale()) {
    scale_ = fitScale();
    fitted_ = true;
  }
  clampOrigin();
  invalidate();
}

void ZoomableHeatmap::wheelEvent(QWheelEvent* event) {
  zoomBy(std::pow(1.2, event->angleDelta().y() / 120.0), event->position());
  event->accept();
}

void ZoomableHeatmap::mousePressEvent(QMouseEvent* event) {
  lastPos_ = event->position();
  if (event->button() != Qt::LeftButton) return;
  if (minimapRect().contains(event->position().toPoint())) {
    drag_ = Drag::Minimap;
    minimapMove(event->position());
    return;
  }
  int r, c;
  if (cellAt(event->position(), &r, &c)) {
    drag_ = Drag::Map;
    emit cellClicked(r, c, event->modifiers());
  }
}

void ZoomableHeatmap::mouseMoveEvent(QMouseEvent* event) {
  const QPointF pos = event->position();
  if (drag_ == Drag::Map) {
    panBy(pos - lastPos_);
  } else if (drag_ == Drag::Minimap) {
    minimapMove(pos);
  }
  lastPos_ = pos;
  int r, c;
  if (drag_ == Drag::None && cellAt(pos, &r, &c) && !minimapRect().contains(pos.toPoint()))
    emit cellHovered(r, c, pyramid_->value(r, c));
  else if (drag_ == Drag::None)
    emit cellHovered(-1, -1, 0);
}

void ZoomableHeatmap::mouseReleaseEvent(QMouseEvent*) { drag_ = Drag::None; }

void ZoomableHeatmap::leaveEvent(QEvent*) { emit cellHovered(-1, -1, 0); }

}  // namespace attnlab::ui
