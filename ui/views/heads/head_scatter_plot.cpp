#include "ui/views/heads/head_scatter_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/plots/colormaps.h"
#include "ui/plots/plot_titles.h"
#include "ui/plots/view_style.h"

namespace attnlab::ui {
namespace {

constexpr int kLevels = 64;  ///< colour levels: one graph each (layers of a ≤ 64-layer model get their own)

QCPRange finiteRange(const std::vector<double>& v) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double x : v)
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!std::isfinite(lo)) return {0, 1};
  if (hi - lo < 1e-12) return {lo - 0.5, hi + 0.5};
  return {lo, hi};
}

QCPRange padded(const QCPRange& r) {
  const double pad = 0.06 * r.size();
  return {r.lower - pad, r.upper + pad};
}

QCPGraph* markGraph(QCustomPlot* plot, QCPScatterStyle::ScatterShape shape, const QColor& colour, double size,
                    double width) {
  QCPGraph* g = plot->addGraph();
  g->setLineStyle(QCPGraph::lsNone);
  g->setScatterStyle(QCPScatterStyle(shape, QPen(colour, width), Qt::NoBrush, size));
  return g;
}

}  // namespace

HeadScatterPlot::HeadScatterPlot(QWidget* parent) : QCustomPlot(parent) {
  setMouseTracking(true);
  plotLayout()->insertRow(0);
  title_ = new QCPTextElement(this, QString(), QFont(font().family(), 11, QFont::Bold));
  plotLayout()->addElement(0, 0, title_);
  scale_ = new QCPColorScale(this);
  scale_->setType(QCPAxis::atRight);
  scale_->setGradient(gradient(ColorMap::Viridis));
  plotLayout()->addElement(1, 1, scale_);
  auto* margins = new QCPMarginGroup(this);
  axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, &HeadScatterPlot::rebuild);
  applyFonts();
}

void HeadScatterPlot::setPoints(std::vector<Point> points, bool discrete) {
  points_ = std::move(points);
  discrete_ = discrete;
  hovered_ = -1;
  rebuild();
}

void HeadScatterPlot::setTitles(const QString& title, const QString& x, const QString& y, const QString& colour) {
  titleText_ = title;
  title_->setText(wrapTitle(titleText_, title_->font(), width() - 16));
  xAxis->setLabel(x);
  yAxis->setLabel(y);
  scale_->axis()->setLabel(colour);
  replot(QCustomPlot::rpQueuedReplot);
}

void HeadScatterPlot::setMarks(const std::vector<int>& crossed, const std::vector<int>& group, int selected) {
  crossed_ = crossed;
  group_ = group;
  selected_ = selected;
  rebuild();
}

void HeadScatterPlot::rebuild() {
  clearGraphs();
  const ViewStyle& style = ViewStyle::instance();
  const ColorMap map = style.resolve(ColorMap::Viridis);
  scale_->setGradient(gradient(map));
  std::vector<double> xs, ys, cs;
  for (const Point& p : points_) xs.push_back(p.x), ys.push_back(p.y), cs.push_back(p.colour);
  const QCPRange cr = finiteRange(cs);
  // Discrete: levels lo..hi, one per integer; the bar spans lo − ½ … hi + ½ so each step is centred on its tick.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double c : cs)
    if (std::isfinite(c)) lo = std::min(lo, std::round(c)), hi = std::max(hi, std::round(c));
  if (!std::isfinite(lo)) lo = hi = 0;
  const int steps = discrete_ ? std::clamp(static_cast<int>(hi - lo) + 1, 1, kLevels) : kLevels;
  if (discrete_) {
    QCPColorGradient g = gradient(map);
    if (steps == 1) {  // one layer: one colour (a gradient needs two levels)
      g.clearColorStops();
      g.setColorStopAt(0, QColor::fromRgb(colorAt(map, 0)));
      g.setColorStopAt(1, QColor::fromRgb(colorAt(map, 0)));
    }
    g.setLevelCount(std::max(2, steps));
    scale_->setGradient(g);
    scale_->setDataRange({lo - 0.5, lo + steps - 0.5});
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);  // 1, 2, 5… apart when the layers are many
    scale_->axis()->setTicker(ticker);
    scale_->axis()->setSubTicks(false);
  } else {
    scale_->setDataRange(cr);
    scale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    scale_->axis()->setSubTicks(true);
  }
  std::vector<QCPGraph*> levels(kLevels, nullptr);
  const QColor outline = style.foreground();
  for (const Point& p : points_) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    int level = 0;
    if (discrete_)
      level = std::isfinite(p.colour) ? std::clamp(static_cast<int>(std::lround(p.colour - lo)), 0, steps - 1) : 0;
    else
      level = std::clamp(static_cast<int>(std::lround(
                             (std::isfinite(p.colour) ? (p.colour - cr.lower) / cr.size() : 0.0) * (kLevels - 1))),
                         0, kLevels - 1);
    if (!levels[level]) {
      levels[level] = addGraph();
      levels[level]->setLineStyle(QCPGraph::lsNone);
      const double t = steps > 1 ? static_cast<double>(level) / (steps - 1) : 0.0;
      const QColor fill = QColor::fromRgb(colorAt(map, t));
      levels[level]->setScatterStyle(
          QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(outline, 0.6), QBrush(fill), 9 * fontScale_));
    }
    levels[level]->addData(p.x, p.y);
  }
  const auto addMarks = [&](const std::vector<int>& which, QCPGraph* g) {
    for (int i : which)
      if (i >= 0 && i < static_cast<int>(points_.size())) g->addData(points_[i].x, points_[i].y);
  };
  addMarks(group_,
           markGraph(this, QCPScatterStyle::ssCircle, QColor(255, 140, 0), 15 * fontScale_, style.lineWidth(2)));
  addMarks(crossed_,
           markGraph(this, QCPScatterStyle::ssCross, QColor(220, 30, 30), 13 * fontScale_, style.lineWidth(2.2)));
  addMarks({selected_}, markGraph(this, QCPScatterStyle::ssSquare, outline, 17 * fontScale_, style.lineWidth(1.6)));
  xAxis->setRange(padded(finiteRange(xs)));
  yAxis->setRange(padded(finiteRange(ys)));
  setBackground(style.background());
  for (QCPAxis* a : {xAxis, yAxis, scale_->axis()}) {
    a->setBasePen(QPen(outline));
    a->setTickPen(QPen(outline));
    a->setSubTickPen(QPen(outline));
    a->setLabelColor(outline);
    a->setTickLabelColor(outline);
  }
  title_->setTextColor(outline);
  replot(QCustomPlot::rpQueuedReplot);
}

QPointF HeadScatterPlot::pixelOf(int index) const {
  const Point& p = points_.at(static_cast<size_t>(index));
  return {xAxis->coordToPixel(p.x), yAxis->coordToPixel(p.y)};
}

int HeadScatterPlot::pointAt(const QPointF& pos) const {
  int best = -1;
  double bestDistance = 10.0 * 10.0;
  for (int i = 0; i < static_cast<int>(points_.size()); ++i) {
    if (!std::isfinite(points_[i].x) || !std::isfinite(points_[i].y)) continue;
    const QPointF d = pixelOf(i) - pos;
    const double squared = d.x() * d.x() + d.y() * d.y();
    if (squared <= bestDistance) bestDistance = squared, best = i;
  }
  return best;
}

void HeadScatterPlot::setFontScale(double scale) {
  fontScale_ = scale;
  applyFonts();
  rebuild();
}

void HeadScatterPlot::applyFonts() {
  QFont tick = font(), label = font();
  tick.setPointSizeF(9 * fontScale_);
  label.setPointSizeF(10 * fontScale_);
  for (QCPAxis* a : {xAxis, yAxis, scale_->axis()}) {
    a->setTickLabelFont(tick);
    a->setLabelFont(label);
  }
  QFont t = title_->font();
  t.setPointSizeF(11 * fontScale_);
  title_->setFont(t);
  title_->setText(wrapTitle(titleText_, t, width() - 16));
}

void HeadScatterPlot::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QCustomPlot::mousePressEvent(event);
  dragging_ = true;
  lasso_ = QPolygonF({event->position()});
}

void HeadScatterPlot::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) {
    lasso_ << event->position();
    update();
    return;
  }
  const int at = pointAt(event->position());
  if (at != hovered_) {
    hovered_ = at;
    emit pointHovered(at);
  }
}

void HeadScatterPlot::mouseReleaseEvent(QMouseEvent* event) {
  if (!dragging_ || event->button() != Qt::LeftButton) return QCustomPlot::mouseReleaseEvent(event);
  dragging_ = false;
  const QRectF box = lasso_.boundingRect();
  const QPolygonF lasso = lasso_;
  lasso_.clear();
  update();
  if (lasso.size() < 3 || std::max(box.width(), box.height()) < 6) {  // a click, not a drag
    emit pointClicked(pointAt(event->position()), event->modifiers());
    return;
  }
  std::vector<int> inside;
  for (int i = 0; i < static_cast<int>(points_.size()); ++i)
    if (std::isfinite(points_[i].x) && std::isfinite(points_[i].y) && lasso.containsPoint(pixelOf(i), Qt::OddEvenFill))
      inside.push_back(i);
  emit lassoSelected(inside);
}

void HeadScatterPlot::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  if (hovered_ != -1) emit pointHovered(hovered_ = -1);
}

void HeadScatterPlot::resizeEvent(QResizeEvent* event) {
  title_->setText(wrapTitle(titleText_, title_->font(), width() - 16));
  QCustomPlot::resizeEvent(event);
}

void HeadScatterPlot::paintEvent(QPaintEvent* event) {
  QCustomPlot::paintEvent(event);
  if (lasso_.size() < 2) return;
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(QPen(QColor(255, 140, 0), 1.5, Qt::DashLine));
  painter.setBrush(QColor(255, 140, 0, 40));
  painter.drawPolygon(lasso_);
}

}  // namespace attnlab::ui
