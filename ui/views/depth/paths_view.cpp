#include "ui/views/depth/paths_view.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include "core/session/params_json.h"
#include "ui/plots/flow_layout.h"
#include "ui/views/depth/collapse_plotting.h"

namespace attnlab::ui {
namespace {

/// What the analysis depends on: the collapse settings minus the inspector and the configurations.
std::string pathsKey(const Params& p) {
  nlohmann::json j = toJson(p.collapse);
  j.erase("inspect_depth");
  j.erase("inspect_config");
  j.erase("configs");
  if (p.collapse.input == CollapseInput::Sentence)
    j["sentence"] = {p.sentence, p.lowercase, toString(p.model.position), p.model.seed};
  return j.dump();
}

QCustomPlot* newPlot(const QString& title) {
  auto* plot = new QCustomPlot;
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, QFont("sans", 10, QFont::Bold)));
  makeLogAxis(plot->yAxis);
  plot->xAxis->setLabel(QObject::tr("path length ℓ (layers that go through a head)"));
  return plot;
}

}  // namespace

PathsView::PathsView(QWidget* parent) : TraceView(parent), job_(this) {
  samples_ = new QSpinBox;
  samples_->setRange(1, 256);
  samples_->setKeyboardTracking(false);
  samples_->setToolTip(tr("Random paths drawn per length and seed."));
  info_ = new QLabel;
  status_ = new QLabel;
  status_->setStyleSheet("color: #b2182b;");
  counts_ = newPlot(tr("Number of paths of length ℓ: C(L, ℓ)·H^ℓ"));
  counts_->yAxis->setLabel(tr("paths (log)"));
  residuals_ = newPlot(tr("Product of the attention matrices along random paths: distance to rank 1"));
  residuals_->yAxis->setLabel(tr("‖P − P₁‖ / ‖P‖, Frobenius norms (log)"));

  auto* bar = new FlowLayout;
  bar->addLabelled(tr("paths per length"), samples_);
  markScreenOnly(bar);  // a figure keeps the read-out, not the control
  info_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(info_);
  layout->addWidget(status_);
  layout->addWidget(counts_, 2);
  layout->addWidget(residuals_, 3);

  connect(samples_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int n) {
    if (!result_ || n == result_->params.collapse.pathSamples) return;
    Params p = result_->params;
    p.collapse.pathSamples = n;
    emit paramsRequested(p);
  });
  connect(&job_, &BackgroundJob::progress, this,
          [this](double f) { status_->setText(tr("sampling paths… %1%").arg(int(f * 100))); });
}

void PathsView::showResult(const ResultPtr& result) {
  if (!result) return;
  result_ = result;
  const Params& p = result->params;
  {
    const QSignalBlocker block(samples_);
    samples_->setValue(std::max(1, p.collapse.pathSamples));
  }
  const std::string key = pathsKey(p);
  if (key == key_) return;
  key_ = key;
  status_->setText(tr("sampling paths…"));
  job_.run<std::shared_ptr<const PathAnalysis>>(
      [p](const RunControl& c) { return std::make_shared<const PathAnalysis>(runPathAnalysis(p, c)); },
      [this](const std::shared_ptr<const PathAnalysis>& a) {
        analysis_ = a;
        status_->clear();
        draw();
      },
      [this](const QString& error) { status_->setText(tr("⚠ %1").arg(error)); });
}

void PathsView::draw() {
  counts_->clearGraphs();
  residuals_->clearGraphs();
  if (!analysis_) return;
  const PathAnalysis& a = *analysis_;
  info_->setText(tr("attention + skip network: L = %1 layers, H = %2 heads, %3 paths per length and seed")
                     .arg(a.layers)
                     .arg(a.heads)
                     .arg(a.samples));
  QVector<double> x, y;
  double top = 1;
  for (std::size_t l = 0; l < a.log10Count.size(); ++l) {
    x << static_cast<double>(l);
    y << std::pow(10.0, a.log10Count[l]);
    top = std::max(top, a.log10Count[l]);
  }
  QCPGraph* g = counts_->addGraph();
  g->setData(x, y);
  g->setPen(QPen(configColor(StackConfig::SanSkip), 2));
  g->setLineStyle(QCPGraph::lsStepCenter);
  counts_->xAxis->setRange(-0.5, a.layers + 0.5);
  counts_->yAxis->setRange(0.5, std::pow(10.0, top + 1));

  std::vector<double> lengths(a.lengths.begin(), a.lengths.end());
  QCPGraph* mid =
      addBandCurve(residuals_, lengths, a.median, a.min, a.max, configColor(StackConfig::San), tr("median over paths"));
  mid->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
  double lo = 1;
  for (double v : a.min) lo = std::min(lo, std::max(v, kLogFloor));
  residuals_->xAxis->setRange(-0.5, a.layers + 0.5);
  residuals_->yAxis->setRange(std::max(kLogFloor, lo / 10), 3);
  counts_->replot(QCustomPlot::rpQueuedReplot);
  residuals_->replot(QCustomPlot::rpQueuedReplot);
}

void PathsView::setFontScale(double scale) {
  scalePlotFonts(counts_, scale);
  scalePlotFonts(residuals_, scale);
  QFont f = font();
  f.setPointSizeF(9 * scale);
  info_->setFont(f);
}

void PathsView::waitForAnalyses() {
  job_.waitForIdle();
  for (int i = 0; i < 10; ++i) QCoreApplication::processEvents();
}

}  // namespace attnlab::ui
