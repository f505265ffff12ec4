#include "ui/plots/zoomable_heatmap.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include "ui/plots/view_style.h"

namespace attnlab::ui {
namespace {

constexpr int kMinimapSide = 140;  ///< the minimap's long side in pixels

/// Tick label size as MatrixPlot's: 8 pt at 300 px growing to 12 pt at 900 px, within [7, 12.5].
double tickPointSize(int side) { return std::clamp(8.0 + 4.0 * (side - 300) / 600.0, 7.0, 12.5); }

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
  // Another head of the same sentence keeps the zoom, and so does an edited text (issue 31: typing reset it at every
  // key): the scale (pixels per cell) and the map point at the top-left corner stay, clamped to the new map. A map
  // shown whole is fitted again, so it stays whole as the text grows; the first map is fitted.
  const bool zoomed = pyramid_ && !pyramid_->empty() && !fitted_;
  pyramid_ = std::move(pyramid);
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  labelWidthPt_ = -1;
  rows_.resize(0, 0);
  rowsFirst_ = 0;
  minimapValid_ = false;
  if (zoomed && pyramid_ && !pyramid_->empty()) {
    const double fit = fitScale();
    scale_ = std::clamp(scale_, fit, std::max(fit, kMaxPixelsPerCell));
    fitted_ = scale_ <= fit;
  } else {
    scale_ = fitScale();
    fitted_ = true;
    origin_ = {};
  }
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

double ZoomableHeatmap::logFloorInForce() const {
  return ViewStyle::instance().attentionScale() == AttentionScale::Log ? logFloor(pyramid_ ? pyramid_->cols() : 0) : 0;
}

double ZoomableHeatmap::position(double value) const {
  const double f = logFloorInForce();
  if (f > 0) return logPosition(value, f);
  const auto [lo, hi] = colorRange();
  return (value - lo) / (hi - lo);
}

std::pair<double, double> ZoomableHeatmap::colorRange() const {
  // MatrixPlot's Range::UnitInterval: weights in [0, 1]; per-map and shared stretch over a smaller max. The row
  // scale's map is normalised already (setPyramid), the log scale's positions are in [0, 1] (position()).
  const AttentionScale scale = ViewStyle::instance().attentionScale();
  double hi = 1;
  if (scale == AttentionScale::PerMap || (scale == AttentionScale::Shared && groupMax_ <= 0))
    hi = pyramid_ && !pyramid_->empty() ? pyramid_->maxValue() : 1;
  else if (scale == AttentionScale::Shared)
    hi = groupMax_;
  return {0.0, std::max(hi, 1e-6)};
}

QRgb ZoomableHeatmap::colorOf(double value) const {
  return lookup(colorTable(ViewStyle::instance().resolve(ColorMap::Viridis)), position(value));
}

QRgb ZoomableHeatmap::cellColor(int row, int col) const {
  if (!pyramid_ || row < 0 || col < 0 || row >= pyramid_->rows() || col >= pyramid_->cols()) return 0;
  return colorOf(pyramid_->value(row, col));
}

QFont ZoomableHeatmap::tickFont() const {
  QFont f = font();
  f.setPointSizeF(tickPointSize(std::min(width(), height())) * fontScale_);
  return f;
}

QRect ZoomableHeatmap::plotRect() const {
  const QFontMetrics fm(tickFont());
  const int line = fm.height();
  const int label = labelWidth();
  const int top = title_.isEmpty() ? 8 : line + 14;
  const int left = label + line + 8;
  const int bottom = static_cast<int>(label * 0.87) + line + 8;                      // labels rotated 60°
  const int right = kBarWidth + 16 + fm.horizontalAdvance("0.0000") + 8 + line + 4;  // ticks, then the bar's label
  const QRect avail(left, top, std::max(1, width() - left - right), std::max(1, height() - top - bottom));
  if (!pyramid_ || pyramid_->empty()) return avail;
  // The viewport is the whole map's rectangle at the fit (square cells), centred with its labels: zoomed
  // in, the map fills the same rectangle.
  const double fit = std::min(static_cast<double>(avail.width()) / pyramid_->cols(),
                              static_cast<double>(avail.height()) / pyramid_->rows());
  const int w = std::max(1, static_cast<int>(pyramid_->cols() * fit)),
            h = std::max(1, static_cast<int>(pyramid_->rows() * fit));
  return QRect(avail.left() + (avail.width() - w) / 2, avail.top() + (avail.height() - h) / 2, w, h);
}

QString ZoomableHeatmap::shownLabel(const QStringList& labels, int i) {
  QString text = labels.value(i, QString::number(i));
  return text.size() > 14 ? text.left(13) + QChar(0x2026) : text;
}

int ZoomableHeatmap::labelWidth() const {
  // The widest label that can be shown (token text cut at 14 characters, or an index), measured once
  // per font size: the margins hold it.
  const QFont f = tickFont();
  if (f.pointSizeF() == labelWidthPt_) return labelWidth_;
  const QFontMetrics fm(f);
  int w = fm.horizontalAdvance(QString::number(pyramid_ ? std::max(pyramid_->rows(), pyramid_->cols()) : 0));
  for (const QStringList* labels : {&rowLabels_, &colLabels_})
    for (int i = 0; i < labels->size(); ++i) w = std::max(w, fm.horizontalAdvance(shownLabel(*labels, i)));
  labelWidthPt_ = f.pointSizeF();
  labelWidth_ = w + 6;
  return labelWidth_;
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
  moved();
}

void ZoomableHeatmap::moved() {
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
  moved();
}

void ZoomableHeatmap::panBy(const QPointF& delta) {
  origin_ -= delta / scale_;
  clampOrigin();
  moved();
}

void ZoomableHeatmap::centreOn(const QPointF& cell) {
  const QRect plot = plotRect();
  origin_ = cell - QPointF(plot.width(), plot.height()) / (2 * scale_);
  clampOrigin();
  moved();
}

void ZoomableHeatmap::resetView() {
  scale_ = fitScale();
  fitted_ = true;
  origin_ = {};
  clampOrigin();
  moved();
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

int ZoomableHeatmap::drawnLevel() const {
  if (!pyramid_) return 0;
  // Between 1 and 2 cells a pixel without level 0, level 1's cells (1 to 2 pixels, none dropped) spare
  // reading twice as many rows through the producer.
  const int level = pyramid_->levelFor(scale_);
  return level == 0 && scale_ < 1 && !pyramid_->hasLevel(0) && pyramid_->levelCount() > 1 ? 1 : level;
}

bool ZoomableHeatmap::cellAt(const QPointF& pos, int* row, int* col) const {
  if (!pyramid_ || pyramid_->empty() || !plotRect().contains(pos.toPoint())) return false;
  const QPointF cell = origin_ + (pos - plotRect().topLeft()) / scale_;
  *col = static_cast<int>(std::floor(cell.x()));
  *row = static_cast<int>(std::floor(cell.y()));
  return *row >= 0 && *row < pyramid_->rows() && *col >= 0 && *col < pyramid_->cols();
}

const QImage& ZoomableHeatmap::mapImage() {
  const QRect plot = plotRect();
  const int level = drawnLevel();
  const bool same = imageValid_ && image_.size() == plot.size() && imageScale_ == scale_ && imageLevel_ == level;
  if (same && imageOrigin_ == origin_) return image_;
  // A pan by whole pixels (a drag): the cached picture moves and only the uncovered strips are drawn.
  const QPointF shift = (imageOrigin_ - origin_) * scale_;
  const int dx = static_cast<int>(std::lround(shift.x())), dy = static_cast<int>(std::lround(shift.y()));
  const bool scroll = same && std::abs(shift.x() - dx) < 1e-6 && std::abs(shift.y() - dy) < 1e-6 &&
                      std::abs(dx) < plot.width() && std::abs(dy) < plot.height();
  if (image_.size() != plot.size()) image_ = QImage(plot.size(), QImage::Format_RGB32);
  imageValid_ = true;
  imageScale_ = scale_;
  imageOrigin_ = origin_;
  imageLevel_ = level;
  PixelJob job;
  job.background = ViewStyle::instance().background().rgb();
  if (!pyramid_ || pyramid_->empty()) {
    image_.fill(job.background);
    return image_;
  }
  const int cell = 1 << level, w = plot.width(), h = plot.height();
  pixelRanges(h, origin_.y(), scale_, cell, pyramid_->levelRows(level), job.rowLo, job.rowHi);
  pixelRanges(w, origin_.x(), scale_, cell, pyramid_->levelCols(level), job.colLo, job.colHi);
  job.src = sourceFor(level, job.rowLo, job.rowHi);
  std::tie(job.lo, job.hi) = colorRange();
  job.logFloor = logFloorInForce();
  job.table = &colorTable(ViewStyle::instance().resolve(ColorMap::Viridis));
  job.mean = pooling_ == Pooling::Mean;
  if (!scroll) {
    renderPixels(image_, job, 0, w, 0, h);
    return image_;
  }
  // Move the kept pixels by (dx, dy) in place, rows in the order that never overwrites unread ones.
  const int keepW = w - std::abs(dx), fromX = std::max(0, -dx), toX = std::max(0, dx);
  for (int k = 0; k < h - std::abs(dy); ++k) {
    const int y = dy > 0 ? h - 1 - k : k;
    std::memmove(reinterpret_cast<QRgb*>(image_.scanLine(y)) + toX,
                 reinterpret_cast<const QRgb*>(image_.constScanLine(y - dy)) + fromX, sizeof(QRgb) * keepW);
  }
  const int ky0 = std::max(0, dy), ky1 = std::min(h, h + dy);  // the rows kept
  renderPixels(image_, job, 0, w, 0, ky0);
  renderPixels(image_, job, 0, w, ky1, h);
  renderPixels(image_, job, 0, toX, ky0, ky1);
  renderPixels(image_, job, toX + keepW, w, ky0, ky1);
  return image_;
}

LevelSource ZoomableHeatmap::sourceFor(int level, const std::vector<int>& rowLo, const std::vector<int>& rowHi) {
  if (pyramid_->hasLevel(level)) {
    const MapLevel& m = pyramid_->level(level, pooling_);
    return {m.data(), m.cols(), 0, 0};
  }
  // Full resolution without level 0: whole rows through the producer (it makes whole rows anyway), the
  // visible ones and a margin; after a pan only the rows not yet held are read.
  int a = pyramid_->rows(), b = -1;
  for (std::size_t y = 0; y < rowLo.size(); ++y)
    if (rowLo[y] <= rowHi[y]) a = std::min(a, rowLo[y]), b = std::max(b, rowHi[y]);
  const int heldEnd = rowsFirst_ + static_cast<int>(rows_.rows());
  if (b >= a && (a < rowsFirst_ || b >= heldEnd)) {
    const int margin = (b - a + 1) / 4;
    const int first = std::max(0, a - margin), end = std::min(pyramid_->rows(), b + 1 + margin);
    MapLevel next(end - first, pyramid_->cols()), part;
    const int keep0 = std::max(first, rowsFirst_), keep1 = std::min(end, heldEnd);
    if (keep1 > keep0)
      next.middleRows(keep0 - first, keep1 - keep0) = rows_.middleRows(keep0 - rowsFirst_, keep1 - keep0);
    const auto read = [&](int from, int to) {
      if (to <= from) return;
      pyramid_->readWindow(from, to - from, 0, pyramid_->cols(), part);
      next.middleRows(from - first, to - from) = part;
    };
    if (keep1 > keep0) {
      read(first, keep0);
      read(keep1, end);
    } else {
      read(first, end);
    }
    rows_.swap(next);
    rowsFirst_ = first;
  }
  return {rows_.data(), rows_.cols(), rowsFirst_, 0};
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
  const auto& table = colorTable(ViewStyle::instance().resolve(ColorMap::Viridis));
  minimap_ = QImage(static_cast<int>(m.cols()), static_cast<int>(m.rows()), QImage::Format_RGB32);
  for (int r = 0; r < m.rows(); ++r) {
    auto* line = reinterpret_cast<QRgb*>(minimap_.scanLine(r));
    for (int c = 0; c < m.cols(); ++c) line[c] = lookup(table, position(m(r, c)));
  }
  return minimap_;
}

QRect ZoomableHeatmap::minimapRect() const {
  if (!pyramid_ || pyramid_->empty()) return {};
  const QRectF vis = visibleCells();
  if (vis.width() > pyramid_->cols() - 0.5 && vis.height() > pyramid_->rows() - 0.5) return {};  // all in view
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
    drawWindowShade(p, plot);
    drawMarks(p, plot);
    drawMinimap(p);
  }
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
  moved();
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
  if (drag_ == Drag::None && cellAt(pos, &r, &c) && !minimapRect().contains(pos.toPoint())) {
    if (r != hoverRow_ || c != hoverCol_) update();  // the column band follows the cursor
    hoverRow_ = r;
    hoverCol_ = c;
    emit cellHovered(r, c, pyramid_->value(r, c));
  } else if (drag_ == Drag::None) {
    hoverRow_ = hoverCol_ = -1;
    emit cellHovered(-1, -1, 0);
  }
}

void ZoomableHeatmap::mouseReleaseEvent(QMouseEvent*) { drag_ = Drag::None; }

void ZoomableHeatmap::leaveEvent(QEvent*) {
  hoverRow_ = hoverCol_ = -1;
  emit cellHovered(-1, -1, 0);
}

}  // namespace attnlab::ui
