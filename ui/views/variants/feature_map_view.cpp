#include "ui/views/variants/feature_map_view.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/plots/panel_layout.h"

#include "ui/plots/flow_layout.h"

namespace attnlab::ui {
namespace {

QString mapLabel(FeatureMap f) {
  switch (f) {
    case FeatureMap::EluPlusOne:
      return QStringLiteral("φ = 1 + elu");
    case FeatureMap::Exp:
      return QStringLiteral("φ = eˣ");
    case FeatureMap::Relu:
      return QStringLiteral("φ = relu");
    case FeatureMap::Performer:
      return QStringLiteral("Performer φ⁺");
  }
  return {};
}

QStringList indexLabels(int n) {
  QStringList l;
  for (int i = 0; i < n; ++i) l << QString::number(i);
  return l;
}

}  // namespace

FeatureMapView::FeatureMapView(QWidget* parent) : TraceView(parent) {
  curves_ = new TitledPlot;
  curves_->setTitle(tr("Feature maps φ(x) on [−4, 4]"));
  curves_->xAxis->setLabel("x");
  curves_->yAxis->setLabel("φ(x)");
  curves_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  scatter_ = new TitledPlot;
  scatter_->xAxis->setLabel(tr("exact exp(q·k/√d)"));
  scatter_->yAxis->setLabel(tr("α·φ(q)·φ(k)  (α: least squares)"));
  for (QCPAxis* a : {scatter_->xAxis, scatter_->yAxis}) {
    a->setScaleType(QCPAxis::stLogarithmic);
    a->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  }
  scatter_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  info_ = new QLabel;
  info_->setWordWrap(true);
  features_ = new QSpinBox;
  features_->setRange(0, 4096);
  features_->setSpecialValueText(tr("4 × head size"));
  features_->setToolTip(tr("Performer's number of random features m (0: 4·d<sub>head</sub>, the paper's choice)"));
  seed_ = new QSpinBox;
  seed_->setRange(0, 1000000);
  seed_->setToolTip(tr("seed of Performer's random features"));
  orthogonal_ = new QCheckBox(tr("orthogonal features"));
  job_ = new BackgroundJob(this);

  auto* controls = new FlowLayout;
  controls->addLabelled(tr("Performer m"), features_);
  controls->addLabelled(tr("seed"), seed_);
  controls->addWidget(orthogonal_);
  markScreenOnly(controls);  // the controls stay off figures
  // The curves beside the kernel scatter, the maps in a row: stacked or wrapped when the view is narrow.
  auto* top = new PanelLayout(340, 240);
  top->addWidget(curves_);
  top->addWidget(scatter_);
  auto* maps = new PanelLayout(200, 220);
  for (int i = 0; i <= static_cast<int>(featureMaps().size()); ++i) {
    auto* m = new MatrixPlot;
    m->setRangeMode(MatrixPlot::Range::UnitInterval);
    // Every heatmap carries its colour bar (on the 0–1 scale they all read alike; per map they differ).
    m->setMinimumSize(120, 120);
    heatmaps_.push_back(m);
    maps->addWidget(m);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addLayout(top, 3);
  layout->addLayout(maps, 2);
  layout->addWidget(info_);

  connect(features_, &QSpinBox::valueChanged, this, &FeatureMapView::emitEdit);
  connect(seed_, &QSpinBox::valueChanged, this, &FeatureMapView::emitEdit);
  connect(orthogonal_, &QCheckBox::toggled, this, &FeatureMapView::emitEdit);
  drawCurves();
  scatter_->showMessage(tr("No model run yet"));
}

void FeatureMapView::drawCurves() {
  // Cheap and fixed (400 points): drawn once on the GUI thread.
  QVector<double> x;
  for (int i = 0; i <= 400; ++i) x << -4.0 + 8.0 * i / 400;
  int color = 1;
  for (FeatureMap f : featureMaps()) {
    if (f == FeatureMap::Performer) continue;  // not an elementwise function
    QVector<double> y;
    for (double v : x) y << featureScalar(f, v);
    curves_->addSeries(mapLabel(f), x, y, seriesColor(color++), true, false);
  }
  QVector<double> tangent;
  for (double v : x) tangent << 1 + v;
  curves_->addSeries(tr("1 + x: tangent of eˣ at 0"), x, tangent, QColor(90, 90, 90), true, false, Qt::DashLine);
  curves_->xAxis->setRange(-4, 4);
  curves_->yAxis->setRange(-1, 8);
  curves_->replot(QCustomPlot::rpQueuedReplot);
}

void FeatureMapView::emitEdit() {
  if (!result_) return;
  Params p = result_->params;
  p.spectra.features.performerFeatures = features_->value();
  p.spectra.features.performerSeed = static_cast<uint64_t>(seed_->value());
  p.spectra.features.orthogonal = orthogonal_->isChecked();
  emit paramsRequested(p);
}

void FeatureMapView::showResult(const ResultPtr& result) {
  result_ = result;
  if (!result) return;
  const FeatureMapSettings s = result->params.spectra.features;
  {
    const QSignalBlocker b1(features_), b2(seed_), b3(orthogonal_);
    features_->setValue(s.performerFeatures);
    seed_->setValue(static_cast<int>(s.performerSeed));
    orthogonal_->setChecked(s.orthogonal);
  }
  if (!result->ok()) return;
  const ResultPtr r = result;
  const int l = r->layer(), h = r->head();
  job_->run<FeatureMapComparison>(
      [r, l, h, s](const RunControl& c) {
        const HeadTrace& head = r->trace().layers[l].heads[h];
        return compareFeatureMaps(head.q.cast<double>(), head.k().cast<double>(), r->trace().causal, s, c);
      },
      [this](const FeatureMapComparison& c) { showComparison(c); },
      [this](const QString& e) { info_->setText(tr("Comparison failed: %1").arg(e)); });
}

void FeatureMapView::showComparison(const FeatureMapComparison& c) {
  comparison_ = c;
  const int l = result_->layer(), h = result_->head();
  scatter_->clearAll();
  scatter_->setTitle(tr("Kernel per pair · layer %1 · head %2 · n = %3").arg(l).arg(h).arg(c.n));
  const long long pairs = static_cast<long long>(c.n) * c.n;
  const long long step = std::max<long long>(1, (pairs + kMaxScatterPoints - 1) / kMaxScatterPoints);
  double lo = INFINITY, hi = 0;
  QStringList lines;
  for (std::size_t m = 0; m < c.maps.size(); ++m) {
    const FeatureMapEntry& e = c.maps[m];
    QVector<double> x, y;
    int hidden = 0;
    for (long long k = 0; k < pairs; k += step) {
      const double ex = c.exact(k / c.n, k % c.n), ap = e.fitScale * e.kernel(k / c.n, k % c.n);
      if (!(ap > 0) || !(ex > 0)) {
        ++hidden;  // a log axis cannot show 0 (relu's products often are)
        continue;
      }
      x << ex;
      y << ap;
      lo = std::min({lo, ex, ap});
      hi = std::max({hi, ex, ap});
    }
    QString name = tr("%1: r = %2").arg(mapLabel(e.map)).arg(e.correlation, 0, 'f', 3);
    if (hidden) name += tr(" (%1 zeros not shown)").arg(hidden);
    scatter_->addSeries(name, x, y, seriesColor(static_cast<int>(m) + 1), false, true);
    lines << tr("%1 (m = %2): corr %3 · rank %4 · eff. rank %5 · entropy %6%7")
                 .arg(mapLabel(e.map))
                 .arg(e.features)
                 .arg(e.correlation, 0, 'f', 3)
                 .arg(e.numericalRank)
                 .arg(e.effectiveRank, 0, 'f', 1)
                 .arg(e.entropy, 0, 'f', 2)
                 .arg(e.emptyRows ? tr(" · %1 rows with no weight").arg(e.emptyRows) : QString());
  }
  if (!(hi > 0)) lo = 0.1, hi = 10;
  scatter_->addSeries(tr("y = x"), {lo, hi}, {lo, hi}, QColor(90, 90, 90), true, false, Qt::DashLine);
  scatter_->xAxis->setRange(lo / 1.3, hi * 1.3);
  scatter_->yAxis->setRange(lo / 1.3, hi * 1.3);
  scatter_->replot(QCustomPlot::rpQueuedReplot);

  // Each heatmap scales its colours to its own largest weight (printed): diffuse maps look flat.
  const QStringList labels = result_->tokenLabels().size() == c.n ? result_->tokenLabels() : indexLabels(c.n);
  heatmaps_[0]->setTitle(tr("softmax\nrank %1 · max %2").arg(c.softmaxRank).arg(c.softmax.maxCoeff(), 0, 'f', 2));
  heatmaps_[0]->setMatrix(c.softmax.cast<float>(), labels, labels);
  for (std::size_t m = 0; m < c.maps.size(); ++m) {
    heatmaps_[m + 1]->setTitle(tr("%1\nrank %2 · max %3")
                                   .arg(mapLabel(c.maps[m].map))
                                   .arg(c.maps[m].numericalRank)
                                   .arg(c.maps[m].attention.maxCoeff(), 0, 'f', 2));
    heatmaps_[m + 1]->setMatrix(c.maps[m].attention.cast<float>(), labels, labels);
  }
  info_->setText(
      tr("softmax: rank %1 · eff. rank %2 · entropy %3 (nats; log n = %4). ")
          .arg(c.softmaxRank)
          .arg(c.softmaxEffectiveRank, 0, 'f', 1)
          .arg(c.softmaxEntropy, 0, 'f', 2)
          .arg(std::log(std::max(1, c.n)), 0, 'f', 2) +
      lines.join(" | ") +
      tr(". Exact kernel: exp(q·k/√d) of this head's Q and K (d: the head size); every φ sees q/∜d and k/∜d."));
}

void FeatureMapView::setFontScale(double scale) {
  curves_->setFontScale(scale);
  scatter_->setFontScale(scale);
  for (MatrixPlot* m : heatmaps_) m->setFontScale(scale);
  QFont f = info_->font();
  f.setPointSizeF(9 * scale);
  info_->setFont(f);
}

}  // namespace attnlab::ui
