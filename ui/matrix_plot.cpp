#include "ui/matrix_plot.h"

#include <QToolTip>
#include <cmath>
#include "ui/view_style.h"

namespace attnlab::ui {
namespace {

/// Labels every k-th row so that text never overlaps: ~1.3 line heights per label.
QSharedPointer<QCPAxisTickerText> labelTicker(const QStringList& labels, int pixels, const QFont& font) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int n = labels.size();
  if (n == 0) return ticker;
  const double perLabel = QFontMetrics(font).height() * 1.3;
  const int step = std::max(1, static_cast<int>(std::ceil(n * perLabel / std::max(1, pixels))));
  for (int i = 0; i < n; i += step) {
    QString text = labels[i];
    if (text.size() > 14) text = text.left(13) + QChar(0x2026);
    ticker->addTick(i, text);
  }
  return ticker;
}

}  // namespace

MatrixPlot::MatrixPlot(QWidget* parent) : QCustomPlot(parent) {
  setNoAntialiasingOnDrag(true);
  setMouseTracking(true);
  plotLayout()->insertRow(0);
  title_ = new QCPTextElement(this, "", QFont(font().family(), 10, QFont::Bold));
  plotLayout()->addElement(0, 0, title_);

  map_ = new QCPColorMap(xAxis, yAxis);
  map_->setInterpolate(false);  // one flat cell per weight: interpolation would invent values
  map_->setTightBoundary(false);
  scale_ = new QCPColorScale(this);
  plotLayout()->addElement(1, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  map_->setColorScale(scale_);
  auto* group = new QCPMarginGroup(this);
  axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, group);

  // The axis rect gets its final size only inside a replot's layout pass, after a resize event: when
  // the labels were thinned for another size, thin them again and draw once more.
  connect(this, &QCustomPlot::afterLayout, this, [this] {
    if (axisRect()->size() == tickedSize_) return;
    updateTicks();
    replot(rpQueuedReplot);
  });

  yAxis->setRangeReversed(true);  // row 0 (the first query) at the top, as in a matrix
  xAxis->setTickLabelRotation(60);
  for (QCPAxis* a : {xAxis, yAxis}) {
    a->setSubTicks(false);
    a->setTickLength(0, 3);
    a->grid()->setVisible(false);
  }
  setColorMap(ColorMap::Viridis);
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, &MatrixPlot::applyStyle);
  applyStyle();
}

void MatrixPlot::applyStyle() {
  const ViewStyle& style = ViewStyle::instance();
  map_->setGradient(gradient(style.resolve(requestedMap_)));
  const QColor fg = style.foreground();
  setBackground(style.background());
  axisRect()->setBackground(style.background());
  const QPen pen(fg, style.lineWidth(1));
  for (QCPAxis* a : {xAxis, yAxis, scale_->axis()}) {
    a->setBasePen(pen);
    a->setTickPen(pen);
    a->setSubTickPen(pen);
    a->setTickLabelColor(fg);
    a->setLabelColor(fg);
  }
  title_->setTextColor(fg);
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setMatrix(const Mat& m, const QStringList& rowLabels, const QStringList& colLabels) {
  data_ = m;
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  const int r = static_cast<int>(m.rows()), c = static_cast<int>(m.cols());
  auto* d = map_->data();
  d->setSize(std::max(1, c), std::max(1, r));
  d->setRange(QCPRange(0, std::max(0, c - 1)), QCPRange(0, std::max(0, r - 1)));
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) d->setCell(j, i, m(i, j));
  xAxis->setRange(-0.5, c - 0.5);
  yAxis->setRange(-0.5, r - 0.5);
  updateTicks();
  updateColorRange();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setTitle(const QString& title) {
  title_->setText(title);
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::setAxisTitles(const QString& rows, const QString& cols) {
  yAxis->setLabel(rows);
  xAxis->setLabel(cols);
}

void MatrixPlot::setColorMap(ColorMap map) {
  requestedMap_ = map;
  map_->setGradient(gradient(ViewStyle::instance().resolve(map)));
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

void MatrixPlot::setColorScaleVisible(bool visible) { scale_->setVisible(visible); }

void MatrixPlot::setFontScale(double scale) {
  fontScale_ = scale;
  QFont f = font();
  f.setPointSizeF(9 * scale);
  for (QCPAxis* a : {xAxis, yAxis, scale_->axis()}) {
    a->setTickLabelFont(f);
    a->setLabelFont(f);
  }
  title_->setFont(QFont(f.family(), static_cast<int>(10 * scale), QFont::Bold));
  updateTicks();
  replot(QCustomPlot::rpQueuedReplot);
}

void MatrixPlot::updateTicks() {
  tickedSize_ = axisRect()->size();
  xAxis->setTicker(labelTicker(colLabels_, axisRect()->width(), xAxis->tickLabelFont()));
  yAxis->setTicker(labelTicker(rowLabels_, axisRect()->height(), yAxis->tickLabelFont()));
}

void MatrixPlot::updateColorRange() {
  if (data_.size() == 0) return;
  double lo = data_.minCoeff(), hi = data_.maxCoeff();
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (rangeMode_ == Range::Fixed) {
    lo = fixedLo_;
    hi = fixedHi_;
  } else if (rangeMode_ == Range::UnitInterval) {
    lo = 0;
    hi = std::max(hi, 1e-6);
  } else if (rangeMode_ == Range::Symmetric) {
    const double m = std::max({std::abs(lo), std::abs(hi), 1e-12});
    lo = -m;
    hi = m;
  }
  if (hi <= lo) hi = lo + 1e-12;
  map_->setDataRange(QCPRange(lo, hi));
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
    emit cellHovered(-1, -1, 0);
    return;
  }
  const double v = data_(r, c);
  emit cellHovered(r, c, v);
  const QString rowName = r < rowLabels_.size() ? rowLabels_[r] : QString::number(r);
  const QString colName = c < colLabels_.size() ? colLabels_[c] : QString::number(c);
  QToolTip::showText(event->globalPosition().toPoint(),
                     QString("%1 [%2] → %3 [%4]\n%5").arg(rowName).arg(r).arg(colName).arg(c).arg(v, 0, 'g', 5), this);
}

void MatrixPlot::mousePressEvent(QMouseEvent* event) {
  QCustomPlot::mousePressEvent(event);
  int r, c;
  if (cellAt(event->position(), &r, &c)) emit cellClicked(r, c);
}

void MatrixPlot::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  emit cellHovered(-1, -1, 0);
}

void MatrixPlot::resizeEvent(QResizeEvent* event) {
  QCustomPlot::resizeEvent(event);
  updateTicks();
}

}  // namespace attnlab::ui
