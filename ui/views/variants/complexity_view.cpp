#include "ui/views/variants/complexity_view.h"

#include <QVBoxLayout>
#include <cmath>

#include <qcustomplot.h>

#include "core/session/params_json.h"

namespace attnlab::ui {
namespace {

QColor seriesColor(const std::string& name) {
  if (name == "softmax") return QColor(0, 0, 0);
  if (name == "softmax-unscaled") return QColor(120, 120, 120);
  if (name == "linear-elu") return QColor(27, 158, 119);
  if (name == "linear-exp") return QColor(117, 112, 179);
  if (name == "linear-relu") return QColor(231, 41, 138);
  if (name == "performer-trig") return QColor(214, 96, 77);
  return QColor(33, 102, 172);  // performer, performer-positive
}

/// Time at n by linear interpolation in log–log, or NaN outside the measured range.
double timeAt(const TimingSeries& s, int n) {
  for (std::size_t i = 0; i < s.n.size(); ++i)
    if (s.n[i] == n) return s.ms[i];
  return std::nan("");
}

}  // namespace

ComplexityView::ComplexityView(QWidget* parent) : TraceView(parent), job_(this) {
  plot_ = new QCustomPlot;
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0,
                                  new QCPTextElement(plot_, tr("Time per head vs sequence length (random inputs)"),
                                                     QFont(font().family(), 11, QFont::Bold)));
  auto logTicker = QSharedPointer<QCPAxisTickerLog>::create();
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    a->setScaleType(QCPAxis::stLogarithmic);
    a->setTicker(logTicker);
  }
  plot_->xAxis->setLabel(tr("sequence length n"));
  plot_->yAxis->setLabel(tr("time (ms, best of 3, one thread)"));
  plot_->legend->setVisible(true);
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  status_ = new QLabel(tr("Show this tab to measure."));
  status_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(plot_, 1);
  layout->addWidget(status_);
  connect(&job_, &BackgroundJob::progress, this,
          [this](double f) { status_->setText(tr("Measuring on a worker thread… %1%").arg(int(f * 100))); });
}

void ComplexityView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  const VariantSettings s = result->params.variants;
  const int dHead = static_cast<int>(result->trace().layers[result->layer()].heads[result->head()].q.cols());
  // The sweep depends on the variants and their parameters and d_head, not on the sentence.
  const std::string key = toJson(s).dump() + "|" + std::to_string(dHead);
  if (key == key_) return;
  key_ = key;
  const SweepLimits limits = limits_;
  status_->setText(tr("Measuring on a worker thread…"));
  job_.run<std::shared_ptr<const ComplexitySweep>>(
      [s, dHead, limits](const RunControl& c) {
        return std::make_shared<const ComplexitySweep>(measureComplexity(s, dHead, limits, c));
      },
      [this](const std::shared_ptr<const ComplexitySweep>& sweep) {
        sweep_ = sweep;
        draw();
      },
      [this](const QString& error) { status_->setText(tr("⚠ %1").arg(error)); });
}

void ComplexityView::draw() {
  plot_->clearGraphs();
  if (!sweep_) return;
  double lo = 1e300, hi = 0;
  int nMax = 1;
  for (const TimingSeries& s : sweep_->series) {
    QCPGraph* g = plot_->addGraph();
    QPen pen(seriesColor(s.variant), 2);
    if (!s.efficient) pen.setStyle(Qt::DashLine);
    g->setPen(pen);
    g->setScatterStyle(QCPScatterStyle(s.efficient ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle, 5));
    g->setName(
        QString("%1, %2").arg(QString::fromStdString(s.variant), s.efficient ? tr("efficient") : tr("n×n matrix")));
    for (std::size_t i = 0; i < s.n.size(); ++i) {
      const double ms = std::max(s.ms[i], 1e-4);  // below the clock's resolution
      g->addData(s.n[i], ms);
      lo = std::min(lo, ms);
      hi = std::max(hi, ms);
      nMax = std::max(nMax, s.n[i]);
    }
  }
  if (hi > 0) plot_->yAxis->setRange(lo / 2, hi * 2);
  plot_->xAxis->setRange(limits_.minN / 1.4, nMax * 1.4);
  plot_->replot(QCustomPlot::rpQueuedReplot);
  status_->setText(tr("head size %1, m = %2. Dashed: the explicit n×n path (O(n²)); solid: the efficient path (O(n) "
                      "for the linear kinds and Performer, O(n²) time but O(n) memory for softmax). %3")
                       .arg(sweep_->dHead)
                       .arg(sweep_->features)
                       .arg(crossOverText()));
}

QString ComplexityView::crossOverText() const {
  // Where does each kernel variant's efficient path first beat softmax's explicit path?
  const TimingSeries* softmax = nullptr;
  for (const TimingSeries& s : sweep_->series)
    if (s.variant == "softmax" && !s.efficient) softmax = &s;
  if (!softmax) return {};
  QStringList parts;
  for (const TimingSeries& s : sweep_->series) {
    if (!s.efficient || s.variant.rfind("softmax", 0) == 0) continue;
    int cross = -1;
    for (int n : softmax->n)
      if (timeAt(s, n) < timeAt(*softmax, n)) {
        cross = n;
        break;
      }
    parts << (cross > 0 ? tr("%1 beats softmax from n = %2").arg(QString::fromStdString(s.variant)).arg(cross)
                        : tr("%1 never beats softmax up to n = %2")
                              .arg(QString::fromStdString(s.variant))
                              .arg(softmax->n.empty() ? 0 : softmax->n.back()));
  }
  return parts.join("; ") + ".";
}

void ComplexityView::setFontScale(double scale) {
  QFont f = font();
  f.setPointSizeF(9 * scale);
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    a->setTickLabelFont(f);
    a->setLabelFont(f);
  }
  plot_->legend->setFont(f);
  status_->setFont(f);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace attnlab::ui
