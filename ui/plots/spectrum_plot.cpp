#include "ui/plots/spectrum_plot.h"

#include <algorithm>
#include <cmath>

namespace attnlab::ui {

QColor seriesColor(int index) {
  // Okabe–Ito: distinguishable with common colour-vision deficiencies.
  static const QColor colors[] = {QColor(0x22, 0x22, 0x22), QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00),
                                  QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7), QColor(0xD5, 0x5E, 0x00),
                                  QColor(0x56, 0xB4, 0xE9)};
  return colors[static_cast<std::size_t>(std::max(0, index)) % (sizeof(colors) / sizeof(colors[0]))];
}

TitledPlot::TitledPlot(QWidget* parent) : QCustomPlot(parent) {
  plotLayout()->insertRow(0);
  title_ = new QCPTextElement(this, "", QFont(font().family(), 11, QFont::Bold));
  plotLayout()->addElement(0, 0, title_);
  legend->setVisible(true);
  legend->setBrush(QColor(255, 255, 255, 220));
  axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  // An empty legend would still draw its frame (a stray box over a message).
  connect(this, &QCustomPlot::beforeReplot, this, [this] { legend->setVisible(legend->itemCount() > 0); });
  setMinimumSize(220, 180);
  setFontScale(1.0);
}

void TitledPlot::setTitle(const QString& title) {
  title_->setText(title);
  replot(rpQueuedReplot);
}

void TitledPlot::setFontScale(double scale) {
  fontScale_ = scale;
  QFont f = font();
  f.setPointSizeF(9 * scale);
  for (QCPAxis* a : {xAxis, yAxis}) {
    a->setTickLabelFont(f);
    a->setLabelFont(f);
  }
  legend->setFont(f);
  title_->setFont(QFont(f.family(), static_cast<int>(std::lround(11 * scale)), QFont::Bold));
  replot(rpQueuedReplot);
}

QCPGraph* TitledPlot::addSeries(const QString& name, const QVector<double>& x, const QVector<double>& y,
                                const QColor& color, bool line, bool markers, Qt::PenStyle style) {
  QCPGraph* g = addGraph();
  g->setName(name);
  g->setData(x, y, true);
  g->setPen(QPen(color, line ? 2.0 : 1.0, style));
  g->setLineStyle(line ? QCPGraph::lsLine : QCPGraph::lsNone);
  if (markers) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, line ? 5 : 4));
  if (name.isEmpty()) g->removeFromLegend();
  return g;
}

void TitledPlot::addVerticalMarker(double x, const QString& label, const QColor& color) {
  auto* line = new QCPItemStraightLine(this);
  line->point1->setTypeX(QCPItemPosition::ptPlotCoords);
  line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
  line->point2->setTypeX(QCPItemPosition::ptPlotCoords);
  line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
  line->point1->setCoords(x, 0);
  line->point2->setCoords(x, 1);
  line->setPen(QPen(color, 1.5, Qt::DotLine));
  auto* text = new QCPItemText(this);
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(x, 0.0);
  text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  text->setPadding(QMargins(4, 2, 2, 2));
  text->setText(label);
  text->setColor(color);
  QFont f = font();
  f.setPointSizeF(9 * fontScale_);
  text->setFont(f);
}

void TitledPlot::clearAll() {
  clearGraphs();
  clearPlottables();
  clearItems();
}

void TitledPlot::showMessage(const QString& text) {
  clearAll();
  title_->setText(QString());  // it described the data the message replaces
  auto* t = new QCPItemText(this);
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  t->position->setCoords(0.5, 0.5);
  t->setText(text);
  QFont f = font();
  f.setPointSizeF(10 * fontScale_);
  t->setFont(f);
  replot(rpQueuedReplot);
}

SingularValuePlot::SingularValuePlot(QWidget* parent) : TitledPlot(parent) {
  yAxis->setScaleType(QCPAxis::stLogarithmic);
  auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
  ticker->setSubTickCount(0);
  yAxis->setTicker(ticker);
  yAxis->setNumberFormat("eb");
  yAxis->setNumberPrecision(0);
  xAxis->setLabel(tr("index i"));
  yAxis->setLabel(tr("singular value σᵢ"));
}

void SingularValuePlot::addSpectrum(const QString& name, const VecD& sv, double threshold, const QColor& color) {
  shown_.push_back(sv);
  thresholds_.push_back(threshold);
  const int n = static_cast<int>(sv.size());
  QVector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = i + 1;
    y[i] = sv(i);  // zeros are lifted to the floor in fitRanges
  }
  addSeries(name, x, y, color, true, n <= 200);
  if (threshold > 0)
    addSeries(QString(), {1.0, double(std::max(1, n))}, {threshold, threshold}, color, true, false, Qt::DashLine);
}

void SingularValuePlot::fitRanges() {
  double hi = 0, lo = INFINITY;
  int n = 1;
  for (std::size_t s = 0; s < shown_.size(); ++s) {
    n = std::max(n, static_cast<int>(shown_[s].size()));
    for (Eigen::Index i = 0; i < shown_[s].size(); ++i) {
      hi = std::max(hi, shown_[s](i));
      if (shown_[s](i) > 0) lo = std::min(lo, shown_[s](i));
    }
    if (thresholds_[s] > 0) lo = std::min(lo, thresholds_[s]);
  }
  if (!(hi > 0)) hi = 1;
  if (!std::isfinite(lo)) lo = hi * 1e-16;
  const double floor = lo / 10;
  // Exact zeros sit on the floor, so they stay visible below every threshold.
  for (int g = 0; g < graphCount(); ++g)
    for (auto it = graph(g)->data()->begin(); it != graph(g)->data()->end(); ++it)
      if (!(it->value > 0)) it->value = floor;
  yAxis->setRange(floor / 2, hi * 4);
  xAxis->setRange(0.5, n + 0.5);
  shown_.clear();
  thresholds_.clear();
  replot(rpQueuedReplot);
}

EigenvaluePlot::EigenvaluePlot(QWidget* parent) : TitledPlot(parent) {
  xAxis->setLabel(tr("Re λ"));
  yAxis->setLabel(tr("Im λ"));
  drawCircle();
  connect(this, &QCustomPlot::afterLayout, this, &EigenvaluePlot::fitEqualScales);
}

void EigenvaluePlot::drawCircle() {
  auto* circle = new QCPCurve(xAxis, yAxis);
  const int k = 181;
  QVector<double> t(k), x(k), y(k);
  for (int i = 0; i < k; ++i) {
    t[i] = i;
    x[i] = std::cos(2 * M_PI * i / (k - 1));
    y[i] = std::sin(2 * M_PI * i / (k - 1));
  }
  circle->setData(t, x, y);
  circle->setPen(QPen(QColor(120, 120, 120), 1.2, Qt::DashLine));
  circle->setName(tr("unit circle"));
}

void EigenvaluePlot::setEigenvalues(const std::vector<std::complex<double>>& ev) {
  clearAll();
  drawCircle();
  QVector<double> x, y;
  radius_ = 1.0;
  for (const auto& z : ev) {
    x << z.real();
    y << z.imag();
    radius_ = std::max(radius_, std::abs(z));
  }
  QCPGraph* g = addSeries(tr("eigenvalues"), x, y, seriesColor(1), false, true);
  g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(seriesColor(1), 1.5), QColor(0, 114, 178, 60), 7));
  // Adaptive sampling thins scatter points that share a pixel column with many others: with hundreds of
  // eigenvalues clustered at 0 it dropped isolated ones (−0.26 ± 0.05i of a 500-token head) from view.
  g->setAdaptiveSampling(false);
  fitEqualScales();
  replot(rpQueuedReplot);
}

void EigenvaluePlot::fitEqualScales() {
  // Both axes show at least [−r, r] and the longer side of the plot shows more, so that the unit
  // circle stays round and every eigenvalue (the 1 of a row-stochastic matrix included) stays inside.
  // Runs after each layout pass, when the axis rectangle has its final size for the coming draw.
  const double r = 1.15 * radius_;
  const double w = axisRect()->width(), h = axisRect()->height();
  if (w <= 0 || h <= 0) {
    xAxis->setRange(-r, r);
    yAxis->setRange(-r, r);
  } else if (w >= h) {
    xAxis->setRange(-r * w / h, r * w / h);
    yAxis->setRange(-r, r);
  } else {
    xAxis->setRange(-r, r);
    yAxis->setRange(-r * h / w, r * h / w);
  }
}

}  // namespace attnlab::ui
