#include "ui/views/variants/head_size_view.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <cmath>

#include "ui/plots/panel_layout.h"

#include "ui/plots/flow_layout.h"

namespace attnlab::ui {
namespace {

QString curveLabel(const std::string& name) {
  if (name == "softmax") return QStringLiteral("softmax");
  if (name == "performer") return QStringLiteral("Performer (m = 4d)");
  return QStringLiteral("linear, φ = ") + QString::fromStdString(name == "exp" ? "eˣ" : name);
}

void setLog2X(TitledPlot* p) {
  p->xAxis->setScaleType(QCPAxis::stLogarithmic);
  auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
  ticker->setLogBase(2);
  ticker->setSubTickCount(0);
  p->xAxis->setTicker(ticker);
  p->xAxis->setLabel(QObject::tr("key size d (features m for Performer: 4d)"));
}

}  // namespace

HeadSizeView::HeadSizeView(QWidget* parent) : TraceView(parent) {
  n_ = new QSpinBox;
  n_->setRange(2, 2048);
  n_->setToolTip(tr("n: number of tokens (rows of Q and K)"));
  seed_ = new QSpinBox;
  seed_->setRange(0, 1000000);
  maxKey_ = new QSpinBox;
  maxKey_->setRange(1, 1024);
  maxKey_->setToolTip(tr("largest key size d of the sweep (powers of two up to it)"));
  rank_ = new TitledPlot;
  rank_->setTitle(tr("Numerical rank of the attention matrix"));
  rank_->yAxis->setLabel(tr("rank"));
  rank_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  entropy_ = new TitledPlot;
  entropy_->setTitle(tr("Mean row entropy (nats): high = diffuse, like average pooling"));
  entropy_->yAxis->setLabel(tr("entropy"));
  entropy_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignLeft);
  setLog2X(rank_);
  setLog2X(entropy_);
  info_ = new QLabel;
  info_->setWordWrap(true);
  job_ = new BackgroundJob(this);

  auto* controls = new FlowLayout;
  controls->addLabelled(tr("n"), n_);
  controls->addLabelled(tr("seed"), seed_);
  controls->addLabelled(tr("largest d"), maxKey_);
  markScreenOnly(controls);                 // the controls stay off figures
  auto* plots = new PanelLayout(360, 260);  // side by side, or stacked on a narrow view
  plots->addWidget(rank_);
  plots->addWidget(entropy_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addLayout(plots, 1);
  layout->addWidget(info_);

  connect(n_, &QSpinBox::valueChanged, this, &HeadSizeView::emitEdit);
  connect(seed_, &QSpinBox::valueChanged, this, &HeadSizeView::emitEdit);
  connect(maxKey_, &QSpinBox::valueChanged, this, &HeadSizeView::emitEdit);
  rank_->showMessage(tr("No result yet"));
}

void HeadSizeView::emitEdit() {
  if (!result_) return;
  Params p = result_->params;
  p.spectra.headSize.n = n_->value();
  p.spectra.headSize.seed = static_cast<uint64_t>(seed_->value());
  p.spectra.headSize.maxKeySize = maxKey_->value();
  emit paramsRequested(p);
}

void HeadSizeView::showResult(const ResultPtr& result) {
  if (!result) return;
  result_ = result;
  const HeadSizeSettings s = result->params.spectra.headSize;
  {
    const QSignalBlocker b1(n_), b2(seed_), b3(maxKey_);
    n_->setValue(s.n);
    seed_->setValue(static_cast<int>(s.seed));
    maxKey_->setValue(s.maxKeySize);
  }
  if (haveShown_ && s.n == shown_.n && s.seed == shown_.seed && s.maxKeySize == shown_.maxKeySize) return;
  shown_ = s;
  haveShown_ = true;
  job_->run<HeadSizeSweep>([s](const RunControl& c) { return runHeadSizeSweep(s, c); },
                           [this](const HeadSizeSweep& sw) { showSweep(sw); },
                           [this](const QString& e) { info_->setText(tr("Sweep failed: %1").arg(e)); });
}

void HeadSizeView::showSweep(const HeadSizeSweep& s) {
  sweep_ = s;
  rank_->clearAll();
  entropy_->clearAll();
  QVector<double> d;
  for (int k : s.keySizes) d << k;
  int top = 1;
  for (std::size_t c = 0; c < s.curves.size(); ++c) {
    QVector<double> rank, ent;
    for (std::size_t p = 0; p < s.keySizes.size(); ++p) {
      rank << s.curves[c].rank[p];
      ent << s.curves[c].entropy[p];
      top = std::max(top, s.curves[c].rank[p]);
    }
    const QString name = curveLabel(s.curves[c].name);
    rank_->addSeries(name, d, rank, seriesColor(static_cast<int>(c)));
    entropy_->addSeries(name, d, ent, seriesColor(static_cast<int>(c)));
  }
  QVector<double> bound;
  for (double k : d) bound << std::min<double>(k, s.n);
  rank_->addSeries(tr("rank = d (bound of linear φ)"), d, bound, QColor(120, 120, 120), true, false, Qt::DotLine);
  entropy_->addSeries(tr("log n (uniform rows)"), {d.front(), d.back()}, {std::log(s.n), std::log(s.n)},
                      QColor(120, 120, 120), true, false, Qt::DotLine);
  for (TitledPlot* p : {rank_, entropy_}) p->xAxis->setRange(d.front() / 1.3, d.back() * 1.3);
  rank_->yAxis->setRange(0, std::min(top, s.n) * 1.1 + 1);
  entropy_->yAxis->setRange(0, std::log(s.n) * 1.1);
  rank_->replot(QCustomPlot::rpQueuedReplot);
  entropy_->replot(QCustomPlot::rpQueuedReplot);
  info_->setText(tr("n = %1 tokens, Q and K with N(0, 1) entries, softmax of q·k/√d. Linear attention's rank "
                    "cannot exceed its feature count (d; 4d for Performer); softmax's exp lifts it far above d.")
                     .arg(s.n));
}

void HeadSizeView::setFontScale(double scale) {
  rank_->setFontScale(scale);
  entropy_->setFontScale(scale);
  QFont f = info_->font();
  f.setPointSizeF(9 * scale);
  info_->setFont(f);
}

}  // namespace attnlab::ui
