#include "ui/views/spectra/rank_demo_view.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "ui/plots/panel_layout.h"

#include "ui/plots/flow_layout.h"

namespace attnlab::ui {
namespace {

bool sameDemo(const RankDemoSettings& a, const RankDemoSettings& b) {
  return a.n == b.n && a.scale == b.scale && a.seed == b.seed;
}
bool sameSweep(const RankDemoSettings& a, const RankDemoSettings& b) {
  return a.n == b.n && a.seed == b.seed && a.sweepMin == b.sweepMin && a.sweepMax == b.sweepMax &&
         a.sweepPoints == b.sweepPoints;
}

}  // namespace

RankDemoView::RankDemoView(QWidget* parent) : TraceView(parent) {
  n_ = new QSpinBox;
  n_->setRange(2, 4096);
  n_->setToolTip(tr("n: length of the random vector x"));
  scale_ = new QDoubleSpinBox;
  scale_->setRange(-20, 20);
  scale_->setDecimals(3);
  scale_->setSingleStep(0.1);
  scale_->setToolTip(tr("c in exp(c·x·xᵀ)"));
  seed_ = new QSpinBox;
  seed_->setRange(0, 1000000);
  seed_->setToolTip(tr("seed of x ~ N(0, 1)ⁿ"));
  headline_ = new QLabel;
  headline_->setTextFormat(Qt::RichText);
  spectra_ = new SingularValuePlot;
  sweep_ = new TitledPlot;
  sweep_->xAxis->setScaleType(QCPAxis::stLogarithmic);
  sweep_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  sweep_->xAxis->setLabel(tr("scale c"));
  sweep_->yAxis->setLabel(tr("rank of exp(c·x·xᵀ)"));
  sweep_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  demoJob_ = new BackgroundJob(this);
  sweepJob_ = new BackgroundJob(this);

  auto* controls = new FlowLayout;
  controls->addLabelled(tr("n"), n_);
  controls->addLabelled(tr("scale c"), scale_);
  controls->addLabelled(tr("seed"), seed_);
  markScreenOnly(controls);  // a figure keeps the headline, not the controls
  headline_->setWordWrap(true);
  auto* plots = new PanelLayout(380, 280);  // side by side, or stacked on a narrow view
  plots->addWidget(spectra_);
  plots->addWidget(sweep_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addWidget(headline_);
  layout->addLayout(plots, 1);

  connect(n_, &QSpinBox::valueChanged, this, &RankDemoView::emitEdit);
  connect(scale_, &QDoubleSpinBox::valueChanged, this, &RankDemoView::emitEdit);
  connect(seed_, &QSpinBox::valueChanged, this, &RankDemoView::emitEdit);
  spectra_->showMessage(tr("No result yet"));
}

void RankDemoView::emitEdit() {
  if (!result_) return;
  Params p = result_->params;
  p.spectra.demo.n = n_->value();
  p.spectra.demo.scale = scale_->value();
  p.spectra.demo.seed = static_cast<uint64_t>(seed_->value());
  emit paramsRequested(p);
}

void RankDemoView::showResult(const ResultPtr& result) {
  if (!result) return;
  result_ = result;
  const RankDemoSettings s = result->params.spectra.demo;
  {
    const QSignalBlocker b1(n_), b2(scale_), b3(seed_);
    n_->setValue(s.n);
    scale_->setValue(s.scale);
    seed_->setValue(static_cast<int>(s.seed));
  }
  const bool demoChanged = !haveShown_ || !sameDemo(s, shown_);
  const bool sweepChanged = !haveShown_ || !sameSweep(s, shown_);
  shown_ = s;
  haveShown_ = true;
  if (demoChanged)
    demoJob_->run<RankDemoResult>(
        [s](const RunControl& c) {
          c.checkpoint(0);
          return runRankDemo(s);
        },
        [this](const RankDemoResult& r) { showDemo(r); },
        [this](const QString& e) { headline_->setText(tr("Failed: %1").arg(e)); });
  if (sweepChanged)
    sweepJob_->run<std::vector<RankSweepPoint>>([s](const RunControl& c) { return rankSweep(s, c); },
                                                [this](const std::vector<RankSweepPoint>& p) { showSweep(p); });
  else if (demoChanged)
    showSweep(lastSweep_);  // only c moved: redraw its marker
}

void RankDemoView::showDemo(const RankDemoResult& r) {
  rankOuter_ = r.outer.numericalRank;
  rankExp_ = r.exp.numericalRank;
  headline_->setText(tr("rank(x·xᵀ) = <b>%1</b> &nbsp;→&nbsp; rank(exp(%2·x·xᵀ)) = <b>%3</b> "
                        "&nbsp;(effective %4 → %5)")
                         .arg(rankOuter_)
                         .arg(r.scale)
                         .arg(rankExp_)
                         .arg(r.outer.effectiveRank, 0, 'f', 2)
                         .arg(r.exp.effectiveRank, 0, 'f', 2));
  spectra_->clearAll();
  spectra_->setTitle(tr("Singular values · n = %1 · seed %2").arg(r.n).arg(r.seed));
  spectra_->addSpectrum(tr("x·xᵀ (rank %1)").arg(rankOuter_), r.outer.singularValues, r.outer.threshold,
                        seriesColor(5));
  spectra_->addSpectrum(tr("exp(c·x·xᵀ), c = %1 (rank %2)").arg(r.scale).arg(rankExp_), r.exp.singularValues,
                        r.exp.threshold, seriesColor(1));
  spectra_->fitRanges();
}

void RankDemoView::showSweep(const std::vector<RankSweepPoint>& sweep) {
  lastSweep_ = sweep;
  sweepShown_ = static_cast<int>(sweep.size());
  QVector<double> c, rank, eff;
  int top = 1;
  for (const RankSweepPoint& p : sweep) {
    c << p.scale;
    rank << p.rank;
    eff << p.effectiveRank;
    top = std::max(top, p.rank);
  }
  sweep_->clearAll();
  sweep_->setTitle(tr("Rank vs c · n = %1 · seed %2").arg(shown_.n).arg(shown_.seed));
  sweep_->addSeries(tr("numerical rank"), c, rank, seriesColor(1));
  sweep_->addSeries(tr("effective rank"), c, eff, seriesColor(2), true, false, Qt::DashLine);
  sweep_->addSeries(tr("rank of x·xᵀ"), {shown_.sweepMin, shown_.sweepMax}, {1.0, 1.0}, seriesColor(5), true, false,
                    Qt::DotLine);
  if (shown_.scale > 0) sweep_->addVerticalMarker(shown_.scale, tr("c = %1").arg(shown_.scale), QColor(90, 90, 90));
  sweep_->xAxis->setRange(shown_.sweepMin / 1.2, shown_.sweepMax * 1.2);
  sweep_->yAxis->setRange(0, top * 1.15 + 1);
  sweep_->replot(QCustomPlot::rpQueuedReplot);
}

void RankDemoView::setFontScale(double scale) {
  spectra_->setFontScale(scale);
  sweep_->setFontScale(scale);
  for (QWidget* w : std::initializer_list<QWidget*>{headline_, n_, scale_, seed_}) {
    QFont f = w->font();
    f.setPointSizeF(10 * scale);
    w->setFont(f);
  }
}

}  // namespace attnlab::ui
