#include "ui/plots/matrix_plot.h"

#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ui/plots/cell_painter.h"
#include "ui/plots/view_style.h"
#include "ui/plots/window_shade.h"

namespace attnlab::ui {
namespace {

constexpr int kBarLevels = 256;  ///< colour bar cells: the gradient's level count
constexpr int kBarWidth = 16;    ///< colour bar width in layout pixels at 9 pt labels

/// A colour map whose cells stay cells in SVG/PDF: there QCPColorMap would embed its map image
/// (upsampled to ≥ 100 px, JPEG in PDF) and the viewer would smooth it; here every cell, or every
/// equal-coloured run of a row, becomes a rectangle (above kMaxVectorCells a lossless block image).
/// On screen and in PNG QCPColorMap's own cached image is used.
class CellColorMap : public QCPColorMap {
 public:
  using QCPColorMap::QCPColorMap;

 protected:
  void draw(QCPPainter* painter) override {
    if (!isVectorDevice(painter) || mMapData->isEmpty() || !mKeyAxis || !mValueAxis ||
        mKeyAxis->orientation() != Qt::Horizontal) {
      QCPColorMap::draw(painter);
      return;
    }
    const int nx = mMapData->keySize(), ny = mMapData->valueSize();
    // Outer cell edges in pixels, as QCPColorMap places them: cell centres span the data range.
    const auto edges = [](QCPAxis* axis, const QCPRange& range, int n) {
      const double half = n > 1 ? range.size() / (n - 1) / 2 : range.size() > 0 ? 0 : 0.5;
      const double a = axis->coordToPixel(range.lower - half), b = axis->coordToPixel(range.upper + half);
      return std::make_pair(a, b);  // a: the outer edge of cell 0
    };
    const auto [x0, x1] = edges(mKeyAxis.data(), mMapData->keyRange(), nx);
    const auto [y0, y1] = edges(mValueAxis.data(), mMapData->valueRange(), ny);
    // Image pixel (x, y) is the cell seen at column x, row y of the page.
    QImage cells(nx, ny, QImage::Format_RGB32);
    const bool log = mDataScaleType == QCPAxis::stLogarithmic;
    for (int j = 0; j < ny; ++j) {
      auto* line = reinterpret_cast<QRgb*>(cells.scanLine(y0 < y1 ? j : ny - 1 - j));
      for (int i = 0; i < nx; ++i)
        line[x0 < x1 ? i : nx - 1 - i] = mGradient.color(mMapData->cell(i, j), mDataRange, log);
    }
    paintCells(painter, QRectF(QPointF(x0, y0), QPointF(x1, y1)).normalized(), cells);
  }
};

/// Every `step`-th of `labels` as tick labels (long ones cut to 13 characters and an ellipsis).
QSharedPointer<QCPAxisTickerText> labelTicker(const QStringList& labels, int step) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < labels.size(); i += step) {
    QString text = labels[i];
    if (text.size() > 14) text = text.left(13) + QChar(0x2026);
    ticker->addTick(i, text);
  }
  return ticker;
}

/// The smallest step k such that every k-th label has ~1.3 line heights of `pixels`: text never overlaps.
int labelStep(int labels, int pixels, const QFont& font) {
  if (labels == 0) return 1;
  const double perLabel = QFontMetrics(font).height() * 1.3;
  return std::max(1, static_cast<int>(std::ceil(labels * perLabel / std::max(1, pixels))));
}

/// Labels no smaller than this (points; 9 px at 96 dpi): below, they are thinned instead of shrunk.
constexpr double kMinimumLabelPoints = 7.0;

/// Tick label size at font scale 1 for a plot whose shorter side is `side` pixels: 8 pt at 300 px
/// growing to 12 pt at 900 px (a 1200 × 900 figure: read from the back of a room), 7 pt at least
/// (thumbnails), 12.5 pt at most (a full-screen plot needs no more).
double tickPointSize(int side) { return std::clamp(8.0 + 4.0 * (side - 300) / 600.0, 7.0, 12.5); }

}  // namespace

MatrixPlot::MatrixPlot(QWidget* parent) : QCustomPlot(parent) {
  setNoAntialiasingOnDrag(true);
  setMouseTracking(true);
  plotLayout()->insertRow(0);
  title_ = new QCPTextElement(this, "", QFont(font().family(), 10, QFont::Bold));
  plotLayout()->addElement(0, 0, title_);

  map_ = new CellColorMap(xAxis, yAxis);
  map_->setInterpolate(false);  // one flat cell per weight: interpolation would invent values
  map_->setTightBoundary(false);

  // The colour bar: a narrow axis rect with the value axis on its right and one cell per level.
  bar_ = new QCPAxisRect(this, false);
  bar_->addAxes(QCPAxis::atBottom | QCPAxis::atRight);
  bar_->axis(QCPAxis::atBottom)->setVisible(false);
  bar_->axis(QCPAxis::atBottom)->setRange(0, 1);
  plotLayout()->addElement(1, 1, bar_);
  barMap_ = new CellColorMap(bar_->axis(QCPAxis::atBottom), bar_->axis(QCPAxis::atRight));
  barMap_->setInterpolate(false);
  barMap_->setTightBoundary(false);
  barMap_->data()->setSize(1, kBarLevels);
  auto* group = new QCPMarginGroup(this);
  axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  bar_->setMarginGroup(QCP::msBottom | QCP::msTop, group);

  // The axis rect gets its final size only inside a replot's layout pass, after a resize event: when
  // the labels were thinned for another size, thin them again and draw once more.
  // A few rounds at most: the labels' size changes the margins and so the axis rect, which may flip between two sizes.
  connect(this, &QCustomPlot::afterLayout, this, [this] {
    if (axisRect()->size() == tickedSize_ || reticks_ >= 3) return;
    ++reticks_;
    updateTicks();
    replot(rpQueuedReplot);
  });

  yAxis->setRangeReversed(true);  // row 0 (the first query) at the top, as in a matrix
  xAxis->setTickLabelRotation(60);
  for (QCPAxis* a : {xAxis, yAxis, bar_->axis(QCPAxis::atRight)}) {
    a->setSubTicks(false);
    a->setTickLength(0, 3);
    a->grid()->setVisible(false);
  }
  bar_->axis(QCPAxis::atRight)->setSubTicks(true);
  setColorMap(ColorMap::Viridis);
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, &MatrixPlot::applyStyle);
  updateFonts();
  applyStyle();
}

void MatrixPlot::applyStyle() {
  const ViewStyle& style = ViewStyle::instance();
  map_->setGradient(gradient(style.resolve(requestedMap_)));
  barMap_->setGradient(map_->gradient());
  updateColorRange();  // the attention scale may have changed
  const QColor fg = style.foreground();
  setBackground(style.background());
  axisRect()->setBackground(style.background());
  const QPen pen(fg, style.lineWidth(1));
  for (QCPAxis* a : {xAxis, yAxis, bar_->axis(QCPAxis::atRight)}) {
    a->setBasePen(pen);
    a->setTickPen(pen);
    a->setSubTickPen(pen);
    a->setTickLabelColor(fg);
    a->setLabelColor(fg);
  }
  title_->setTextColor(fg);
  updateMarks();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setMatrix(const Mat& m, const QStringList& rowLabels, const QStringList& colLabels) {
  data_ = m;
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  const int r = static_cast<int>(m.rows()), c = static_cast<int>(m.cols());
  auto* d = map_->data();
  // QCustomPlot draws a map one cell wide (or high) with zero width: its half cell is range / (size − 1).
  // A single column (row) is stored as two half cells spanning the same [−½, ½].
  const int dataCols = c == 1 ? 2 : std::max(1, c), dataRows = r == 1 ? 2 : std::max(1, r);
  d->setSize(dataCols, dataRows);
  d->setRange(c == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, std::max(0, c - 1)),
              r == 1 ? QCPRange(-0.25, 0.25) : QCPRange(0, std::max(0, r - 1)));
  fillCells();
  xAxis->setRange(-0.5, std::max(c, extentCols_) - 0.5);
  yAxis->setRange(-0.5, std::max(r, extentRows_) - 0.5);
  reticks_ = 0;
  updateTicks();
  updateColorRange();
  updateMarks();
  refreshHover();
  replot(QCustomPlot::rpQueuedReplot);
}

AttentionScale MatrixPlot::cellScale() const {
  return rangeMode_ == Range::UnitInterval ? ViewStyle::instance().attentionScale() : AttentionScale::Unit;
}

void MatrixPlot::fillCells() {
  const int r = static_cast<int>(data_.rows()), c = static_cast<int>(data_.cols());
  auto* d = map_->data();
  filledScale_ = cellScale();
  const Mat shown = filledScale_ == AttentionScale::Row ? rowNormalised(data_, rowSkipsDiagonal_) : Mat();
  const Mat& m = filledScale_ == AttentionScale::Row ? shown : data_;
  const double floor = logFloor(c);
  // setMatrix sized the data: a single column (row) is two half cells holding the same value.
  for (int i = 0; i < d->valueSize() && r > 0; ++i)
    for (int j = 0; j < d->keySize() && c > 0; ++j) {
      const double v = m(std::min(i, r - 1), std::min(j, c - 1));
      d->setCell(j, i, filledScale_ == AttentionScale::Log ? logPosition(v, floor) : v);
    }
}

QColor MatrixPlot::cellColor(int row, int col) const {
  if (row < 0 || col < 0 || row >= rows() || col >= cols()) return {};
  auto* d = map_->data();  // QCPColorMapData::cell is not const
  const int i = std::min(row, d->valueSize() - 1), j = std::min(col, d->keySize() - 1);
  return QColor::fromRgb(map_->gradient().color(d->cell(j, i), map_->dataRange()));
}

QString MatrixPlot::colorBarLabel() const { return bar_->axis(QCPAxis::atRight)->label(); }

void MatrixPlot::setRowMaxSkipsDiagonal(bool skip) {
  rowSkipsDiagonal_ = skip;
  fillCells();
  updateColorRange();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setTitle(const QString& title) {
  title_->setText(title);
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setAxisTitles(const QString& rows, const QString& cols) {
  rowTitle_ = rows;
  colTitle_ = cols;
  updateTicks();
}

void MatrixPlot::setColorMap(ColorMap map) {
  requestedMap_ = map;
  map_->setGradient(gradient(ViewStyle::instance().resolve(map)));
  barMap_->setGradient(map_->gradient());
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setRangeMode(Range mode) {
  rangeMode_ = mode;
  updateColorRange();
}

void MatrixPlot::setFixedRange(double lo, double hi) {
  fixedLo_ = lo;
  fixedHi_ = hi;
  rangeMode_ = Range::Fixed;
  updateColorRange();
}

void MatrixPlot::setGroupMax(double max) {
  groupMax_ = max;
  updateColorRange();
}

void MatrixPlot::setColorScaleVisible(bool visible) {
  bar_->setVisible(visible);
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setFontScale(double scale) {
  fontScale_ = scale;
  updateFonts();
  updateTicks();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::updateFonts() {
  const double pt = tickPointSize(std::min(width(), height())) * fontScale_;
  QFont tick = font(), label = font();
  tick.setPointSizeF(pt);
  label.setPointSizeF(pt + 1);
  for (QCPAxis* a : {xAxis, yAxis, bar_->axis(QCPAxis::atRight)}) {
    a->setTickLabelFont(tick);
    a->setLabelFont(label);
  }
  QFont title = font();
  title.setPointSizeF(pt + 2);
  title.setBold(true);
  title_->setFont(title);
  const int bar = static_cast<int>(std::lround(kBarWidth * std::max(1.0, pt / 9)));  // wider with the labels
  bar_->setMinimumSize(bar, 0);
  bar_->setMaximumSize(bar, QWIDGETSIZE_MAX);
}

void MatrixPlot::updateTicks() {
  tickedSize_ = axisRect()->size();
  // Every token labelled when it fits: the labels shrink (to 70 % of their size, 7 pt at least) before they are
  // thinned, and a thinned axis says so in its title, so that no token is skipped silently.
  const auto fit = [this](QCPAxis* axis, const QStringList& labels, int pixels, const QString& title, int extent) {
    QFont f = axis->labelFont();  // the size updateFonts chose, one point above the tick labels
    const double base = f.pointSizeF() - 1, floor = std::max(kMinimumLabelPoints, 0.7 * base);
    f.setPointSizeF(base);
    const int cells = std::max(static_cast<int>(labels.size()), extent);  // the axis's cells, empty ones included
    int step = labelStep(cells, pixels, f);
    while (step > 1 && f.pointSizeF() > floor) {
      f.setPointSizeF(std::max(floor, f.pointSizeF() - 0.5));
      step = labelStep(cells, pixels, f);
    }
    axis->setTickLabelFont(f);
    axis->setTicker(labelTicker(labels, step));
    // The longest form of the title and the note that fits the axis (hovering a cell names its tokens).
    const QFontMetrics fm(axis->labelFont());
    QStringList forms;
    // The title's first words ("key" of "key (attends to)") keep the axis named where the whole title does not fit.
    const QString shortTitle = title.section(" (", 0, 0);
    if (step == 1 || labels.isEmpty()) {
      forms << title;
      if (!shortTitle.isEmpty() && shortTitle != title) forms << shortTitle;
    } else {
      const QString note = tr("1 in %1 labelled").arg(step), shortNote = tr("1/%1 labelled").arg(step);
      forms << (title.isEmpty() ? note : title + " (" + note + ")")
            << (title.isEmpty() ? shortNote : title + " (" + shortNote + ")");
      if (!shortTitle.isEmpty() && shortTitle != title) forms << shortTitle + " (" + shortNote + ")";
      forms << shortNote;
    }
    QString label = fm.elidedText(forms.back(), Qt::ElideRight, pixels);
    for (const QString& form : forms)
      if (fm.horizontalAdvance(form) <= pixels) {
        label = form;
        break;
      }
    axis->setLabel(label);
  };
  fit(xAxis, colLabels_, axisRect()->width(), colTitle_, extentCols_);
  fit(yAxis, rowLabels_, axisRect()->height(), rowTitle_, extentRows_);
}

QCPRange MatrixPlot::colorRange() const { return map_->dataRange(); }

QColor MatrixPlot::colorOf(double value) const {
  QCPColorGradient g = map_->gradient();
  if (cellScale() == AttentionScale::Log) value = logPosition(value, logFloor(cols()));
  return QColor::fromRgb(g.color(value, map_->dataRange()));
}

void MatrixPlot::updateColorRange() {
  // No data yet: the bar still reads 0 to 1 (the mode's range for an all-zero matrix).
  double lo = data_.size() ? data_.minCoeff() : 0, hi = data_.size() ? data_.maxCoeff() : 1;
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (rangeMode_ == Range::Fixed) {
    lo = fixedLo_;
    hi = fixedHi_;
  } else if (rangeMode_ == Range::UnitInterval) {
    // Weights are in [0, 1]; per-map and shared stretch the colours over a smaller maximum.
    // Row and log: the cells hold positions in [0, 1] (fillCells).
    const AttentionScale scale = ViewStyle::instance().attentionScale();
    lo = 0;
    if (scale == AttentionScale::Unit || scale == AttentionScale::Row || scale == AttentionScale::Log)
      hi = 1;
    else if (scale == AttentionScale::Shared && groupMax_ > 0)
      hi = groupMax_;
    hi = std::max(hi, 1e-6);
  } else if (rangeMode_ == Range::Symmetric) {
    const double m = std::max({std::abs(lo), std::abs(hi), 1e-12});
    lo = -m;
    hi = m;
  }
  if (hi <= lo) hi = lo + 1e-12;
  if (cellScale() != filledScale_) fillCells();
  map_->setDataRange(QCPRange(lo, hi));
  // The bar: level k is the value at the middle of its slice of [lo, hi].
  auto* bar = barMap_->data();
  const double step = (hi - lo) / kBarLevels;
  bar->setRange(QCPRange(0, 1), QCPRange(lo + step / 2, hi - step / 2));
  for (int k = 0; k < kBarLevels; ++k) bar->setCell(0, k, lo + (k + 0.5) * step);
  barMap_->setDataRange(QCPRange(lo, hi));
  QCPAxis* axis = bar_->axis(QCPAxis::atRight);
  axis->setRange(lo, hi);
  // The bar says which scale is in force; on the log scale its ticks are the decades from the floor to 1.
  axis->setLabel(rangeMode_ == Range::UnitInterval ? attentionScaleBarLabel(cellScale()) : QString());
  if (cellScale() == AttentionScale::Log) {
    const double lf = std::log10(logFloor(cols()));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int k = static_cast<int>(std::lround(lf)); k <= 0; ++k) ticker->addTick((k - lf) / -lf, decadeLabel(k));
    axis->setTicker(ticker);
    axis->setSubTicks(false);
  } else if (axis->ticker().dynamicCast<QCPAxisTickerText>()) {
    axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    axis->setSubTicks(true);
  }
}

bool MatrixPlot::cellAt(const QPointF& pos, int* row, int* col) const {
  if (data_.size() == 0 || !axisRect()->rect().contains(pos.toPoint())) return false;
  *col = static_cast<int>(std::lround(xAxis->pixelToCoord(pos.x())));
  *row = static_cast<int>(std::lround(yAxis->pixelToCoord(pos.y())));
  return *row >= 0 && *row < data_.rows() && *col >= 0 && *col < data_.cols();
}

void MatrixPlot::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  int r, c;
  if (!cellAt(event->position(), &r, &c)) {
    hoverRow_ = hoverCol_ = -1;
    emit cellHovered(-1, -1, 0);
  } else {
    showHover(r, c, event->globalPosition().toPoint());
  }
  // After the cell: a listener of either signal reads hoveredRow() and hoveredLabel() up to date.
  const int label = tokenLabelAt(event->position());
  if (label != labelHover_) emit tokenLabelHovered(labelHover_ = label);
}

int MatrixPlot::hoverBandColumn() const {
  if (hovered_ < 0) return -1;
  return hoverRow_ == hovered_ && hoverCol_ >= 0 ? hoverCol_ : hovered_;
}

void MatrixPlot::setCellNamer(std::function<QString(int row, int col)> namer) { cellNamer_ = std::move(namer); }

void MatrixPlot::showHover(int r, int c, const QPoint& globalPos) {
  const bool moved = r != hoverRow_ || c != hoverCol_;
  hoverRow_ = r;
  hoverCol_ = c;
  const double v = data_(r, c);
  emit cellHovered(r, c, v);
  const QString rowName = r < rowLabels_.size() ? rowLabels_[r] : QString::number(r);
  const QString colName = c < colLabels_.size() ? colLabels_[c] : QString::number(c);
  // A query → key edge only where both axes are tokens (an attention map); otherwise the row and the column, or what
  // the view says the cell is ("L1 [1] → H1 [1]" on the attribution map read as an edge between two heads).
  const QString name = cellNamer_                 ? cellNamer_(r, c)
                       : tokenRows_ && tokenCols_ ? QString("%1 [%2] → %3 [%4]").arg(rowName).arg(r).arg(colName).arg(c)
                                                  : QString("%1 · %2").arg(rowName, colName);
  QToolTip::showText(globalPos, QString("%1\n%2").arg(name).arg(v, 0, 'g', 5), this);
  if (moved && hovered_ >= 0 && tokenCols_) {  // the column band follows the cursor along the row
    updateMarks();
    replot(QCustomPlot::rpQueuedReplot);
  }
}

void MatrixPlot::refreshHover() {
  if (hoverRow_ < 0) return;
  const QPoint global = QCursor::pos();
  int r, c;
  if (underMouse() && cellAt(mapFromGlobal(global), &r, &c)) {
    showHover(r, c, global);
    return;
  }
  hoverRow_ = hoverCol_ = -1;
  QToolTip::hideText();  // only ours: a read-out was showing, so the tooltip is this plot's
  emit cellHovered(-1, -1, 0);
}

void MatrixPlot::mousePressEvent(QMouseEvent* event) {
  QCustomPlot::mousePressEvent(event);
  int r, c;
  if (cellAt(event->position(), &r, &c))
    emit cellClicked(r, c, event->modifiers());
  else if (const int t = tokenLabelAt(event->position()); t >= 0)
    emit tokenLabelClicked(t, event->modifiers());
}

void MatrixPlot::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  if (labelHover_ >= 0) emit tokenLabelHovered(labelHover_ = -1);
  hoverRow_ = hoverCol_ = -1;
  updateMarks();
  emit cellHovered(-1, -1, 0);
}

void MatrixPlot::resizeEvent(QResizeEvent* event) {
  QCustomPlot::resizeEvent(event);
  reticks_ = 0;
  updateFonts();
  updateTicks();
}

void MatrixPlot::setTokenAxes(bool rows, bool cols) {
  tokenRows_ = rows;
  tokenCols_ = cols;
  updateMarks();
}

void MatrixPlot::setTokenMarks(const std::vector<int>& pinned, int hovered) {
  if (pinned == pins_ && hovered == hovered_) return;
  pins_ = pinned;
  hovered_ = hovered;
  updateMarks();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setCrossedCells(const std::vector<std::pair<int, int>>& cells) {
  if (cells == crossed_) return;
  crossed_ = cells;
  updateMarks();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setWindow(int window) {
  if (window == window_) return;
  window_ = window;
  updateMarks();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::updateMarks() {
  for (QCPItemRect* m : marks_) removeItem(m);
  marks_.clear();
  // Outside the window: row i's columns [0, i − window] under one grey rectangle, made before the marks (drawn under
  // them, which are remade after). Kept while the window, the map's shape and the colour stay.
  const std::tuple<int, int, int, QRgb> shadesFor{window_, this->rows(), this->cols(), windowShadeColour().rgba()};
  const bool remake = shadesFor != shadesFor_;
  if (remake) {
    for (QCPItemRect* m : shades_) removeItem(m);
    shades_.clear();
    shadesFor_ = shadesFor;
  }
  for (int i = std::max(0, window_); remake && window_ > 0 && i < this->rows(); ++i) {
    auto* shade = new QCPItemRect(this);
    shade->topLeft->setCoords(-0.5, i - 0.5);
    shade->bottomRight->setCoords(std::min(this->cols() - 1, i - window_) + 0.5, i + 0.5);
    shade->setPen(Qt::NoPen);
    shade->setBrush(windowShadeColour());
    shade->setSelectable(false);
    shade->setAntialiased(false);  // edge to edge: no seam of background between the rows
    shades_.push_back(shade);
  }
  for (QCPItemLine* c : crosses_) removeItem(c);
  crosses_.clear();
  const QPen crossPen(QColor(0xD0, 0x20, 0x20), ViewStyle::instance().lineWidth(2.5));
  for (const auto& [r, c] : crossed_) {
    if (r < 0 || c < 0 || r >= this->rows() || c >= this->cols()) continue;
    for (const double flip : {1.0, -1.0}) {  // the two diagonals of cell (r, c)
      auto* line = new QCPItemLine(this);
      line->start->setCoords(c - 0.45, r - 0.45 * flip);
      line->end->setCoords(c + 0.45, r + 0.45 * flip);
      line->setPen(crossPen);
      line->setSelectable(false);
      crosses_.push_back(line);
    }
  }
  const int rows = this->rows(), cols = this->cols();
  // Plot coordinates: cell (r, c) spans [c − ½, c + ½] × [r − ½, r + ½].
  const auto add = [&](double x0, double y0, double x1, double y1, const QPen& pen, const QBrush& brush) {
    auto* m = new QCPItemRect(this);
    m->topLeft->setCoords(x0, y0);
    m->bottomRight->setCoords(x1, y1);
    m->setPen(pen);
    m->setBrush(brush);
    m->setSelectable(false);
    marks_.push_back(m);
  };
  const auto mark = [&](int t, const QPen& pen, const QBrush& brush) {
    if (tokenRows_ && t < rows) add(-0.5, t - 0.5, cols - 0.5, t + 0.5, pen, brush);
    if (tokenCols_ && t < cols) add(t - 0.5, -0.5, t + 0.5, rows - 0.5, pen, brush);
  };
  const ViewStyle& style = ViewStyle::instance();
  if (hovered_ >= 0) {
    // The hovered token's row, and the column under the cursor when the cursor is on a cell of that row (a cross
    // through the cell read out), else the token's own column (hovered from another view or a label).
    const QPen pen(QColor(255, 255, 255, 160), style.lineWidth(1));
    const QBrush brush(QColor(255, 255, 255, 45));
    const int col = hoverBandColumn();
    if (tokenRows_ && hovered_ < rows) add(-0.5, hovered_ - 0.5, cols - 0.5, hovered_ + 0.5, pen, brush);
    if (tokenCols_ && col >= 0 && col < cols) add(col - 0.5, -0.5, col + 0.5, rows - 0.5, pen, brush);
  }
  // Orange-red outlines read on every colour map (viridis' purple to yellow, the diverging blue to red
  // through white) and in grey print; a dark inner line keeps them visible on the map's yellow end.
  for (int t : pins_) {
    if (t < 0) continue;
    mark(t, QPen(QColor(20, 20, 20), style.lineWidth(4)), Qt::NoBrush);
    mark(t, QPen(QColor(0xFF, 0x5A, 0x1F), style.lineWidth(2.2)), Qt::NoBrush);
  }
}

int MatrixPlot::tokenLabelAt(const QPointF& pos) const {
  const QRect r = axisRect()->rect();
  if (data_.size() == 0) return -1;
  // Row labels: left of the map, one row high. Column labels: under it, rotated 60° so that a label
  // runs down and to the left of its tick; the tick is found by following the label back up.
  if (tokenRows_ && pos.x() < r.left() && pos.x() > r.left() - 160 && pos.y() >= r.top() && pos.y() <= r.bottom()) {
    const int row = static_cast<int>(std::lround(yAxis->pixelToCoord(pos.y())));
    return row >= 0 && row < rows() ? row : -1;
  }
  if (tokenCols_ && pos.y() > r.bottom() && pos.y() < r.bottom() + 160) {
    const double x = pos.x() + (pos.y() - r.bottom()) * 0.577;  // tan 30°
    const int col = static_cast<int>(std::lround(xAxis->pixelToCoord(x)));
    return col >= 0 && col < cols() ? col : -1;
  }
  return -1;
}

}  // namespace attnlab::ui
