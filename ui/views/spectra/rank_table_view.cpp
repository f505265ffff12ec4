#include "ui/views/spectra/rank_table_view.h"

#include <QHBoxLayout>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/plots/colormaps.h"
#include "ui/views/spectra/spectrum_view.h"

namespace attnlab::ui {

RankGrid::RankGrid(QWidget* parent) : QWidget(parent) {
  setMinimumSize(200, 120);
  setToolTip(tr("Rank and entropy of every head's attention. Click a head to select it."));
}

void RankGrid::setTable(const HeadRankTable& table, int selectedLayer, int selectedHead) {
  table_ = table;
  selLayer_ = selectedLayer;
  selHead_ = selectedHead;
  message_.clear();
  update();
}

void RankGrid::setMeasure(Measure m) {
  measure_ = m;
  update();
}

void RankGrid::setFontScale(double scale) {
  fontScale_ = scale;
  update();
}

void RankGrid::setMessage(const QString& text) {
  message_ = text;
  table_ = {};
  update();
}

double RankGrid::value(const HeadRankCell& c) const {
  switch (measure_) {
    case Measure::NumericalRank:
      return c.numericalRank;
    case Measure::EffectiveRank:
      return c.effectiveRank;
    case Measure::Entropy:
      return c.entropy;
  }
  return 0;
}

double RankGrid::maxValue() const {
  // Fixed scales (n, or log n for entropy) make tables of different sentences comparable.
  const double n = std::max(1, table_.n);
  return measure_ == Measure::Entropy ? std::max(std::log(n), 1e-9) : n;
}

QRect RankGrid::cellRect(int layer, int head) const {
  const int layers = static_cast<int>(table_.cells.size());
  const int heads = layers ? static_cast<int>(table_.cells[0].size()) : 0;
  const int labelW = static_cast<int>(34 * fontScale_), labelH = static_cast<int>(22 * fontScale_);
  const int w = (width() - labelW - 4) / std::max(1, heads), h = (height() - labelH - 4) / std::max(1, layers);
  return QRect(labelW + head * w, labelH + layer * h, w - 3, h - 3);
}

bool RankGrid::cellAt(const QPoint& pos, int* layer, int* head) const {
  for (int l = 0; l < static_cast<int>(table_.cells.size()); ++l)
    for (int h = 0; h < static_cast<int>(table_.cells[l].size()); ++h)
      if (cellRect(l, h).contains(pos)) {
        *layer = l;
        *head = h;
        return true;
      }
  return false;
}

void RankGrid::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  if (table_.cells.empty()) {
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, message_.isEmpty() ? tr("No model run yet") : message_);
    return;
  }
  QFont f = font();
  f.setPointSizeF(9 * fontScale_);
  p.setFont(f);
  const double top = maxValue();
  for (int h = 0; h < static_cast<int>(table_.cells[0].size()); ++h) {
    const QRect r = cellRect(0, h);
    p.drawText(QRect(r.left(), 0, r.width(), r.top() - 2), Qt::AlignHCenter | Qt::AlignBottom, tr("H%1").arg(h));
  }
  for (int l = 0; l < static_cast<int>(table_.cells.size()); ++l) {
    const QRect first = cellRect(l, 0);
    p.setPen(palette().windowText().color());
    p.drawText(QRect(0, first.top(), first.left() - 4, first.height()), Qt::AlignRight | Qt::AlignVCenter,
               tr("L%1").arg(l));
    for (int h = 0; h < static_cast<int>(table_.cells[l].size()); ++h) {
      const HeadRankCell& c = table_.cells[l][h];
      const QRect r = cellRect(l, h);
      const QColor bg = QColor::fromRgb(colorAt(ColorMap::Viridis, value(c) / top));
      p.fillRect(r, bg);
      p.setPen(bg.lightnessF() > 0.55 ? Qt::black : Qt::white);
      const QString text =
          QString("r %1\ne %2\nH %3").arg(c.numericalRank).arg(c.effectiveRank, 0, 'f', 1).arg(c.entropy, 0, 'f', 2);
      const QString shortText = QString::number(value(c), 'f', measure_ == Measure::NumericalRank ? 0 : 1);
      const bool roomy =
          r.height() > 3.3 * QFontMetrics(f).height() && r.width() > QFontMetrics(f).horizontalAdvance("e 000.0");
      p.drawText(r, Qt::AlignCenter, roomy ? text : shortText);
      if (l == selLayer_ && h == selHead_) {
        p.setPen(QPen(QColor(0xE6, 0x55, 0x0D), std::max(2.0, 3 * fontScale_)));
        p.drawRect(r.adjusted(-1, -1, 1, 1));
      }
    }
  }
}

void RankGrid::mousePressEvent(QMouseEvent* event) {
  int l, h;
  if (cellAt(event->pos(), &l, &h)) emit cellClicked(l, h);
}

RankColorBar::RankColorBar(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void RankColorBar::setScale(double top, bool integerTicks, const QString& name) {
  top_ = std::max(top, 1e-9);
  integerTicks_ = integerTicks;
  name_ = name;
  update();
}

void RankColorBar::setFontScale(double scale) {
  fontScale_ = scale;
  QFont f = font();
  f.setPointSizeF(9 * scale);
  setFont(f);
  updateGeometry();
  update();
}

std::vector<double> RankColorBar::ticks() const {
  // A 1-2-5 step giving at most about six intervals; integer measures never step below 1.
  const double raw = top_ / 6;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = decade;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw) {
      step = m * decade;
      break;
    }
  if (integerTicks_) step = std::max(1.0, std::round(step));
  std::vector<double> t;
  for (double v = 0; v < top_ - 0.4 * step; v += step) t.push_back(v);
  t.push_back(top_);  // the end of the scale is always named: n, or log n
  return t;
}

QSize RankColorBar::sizeHint() const {
  const QFontMetrics fm(font());
  return {200, static_cast<int>(12 * fontScale_) + 6 + fm.height() + 4};
}

QRect RankColorBar::barRect() const {
  const QFontMetrics fm(font());
  const int nameW = fm.horizontalAdvance(name_) + fm.horizontalAdvance("0000");
  const int w = std::min(width() - nameW - 2 * fm.horizontalAdvance("00"), static_cast<int>(520 * fontScale_));
  return QRect(nameW, 2, std::max(20, w), static_cast<int>(12 * fontScale_));
}

void RankColorBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect bar = barRect();
  QLinearGradient g(bar.left(), 0, bar.right(), 0);
  for (int i = 0; i <= 16; ++i) g.setColorAt(i / 16.0, QColor::fromRgb(colorAt(ColorMap::Viridis, i / 16.0)));
  p.fillRect(bar, g);
  const QColor fg = palette().windowText().color();
  p.setPen(fg);
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  const QFontMetrics fm(font());
  p.drawText(QRect(0, bar.top(), bar.left() - fm.horizontalAdvance("00"), bar.height()),
             Qt::AlignRight | Qt::AlignVCenter, name_);
  for (double v : ticks()) {
    const int x = bar.left() + static_cast<int>(std::lround(v / top_ * (bar.width() - 1)));
    p.drawLine(x, bar.bottom(), x, bar.bottom() + 4);
    const QString label = integerTicks_ && v == std::round(v) ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3);
    const int w = fm.horizontalAdvance(label);
    p.drawText(QRect(x - w, bar.bottom() + 5, 2 * w, fm.height()), Qt::AlignHCenter | Qt::AlignTop, label);
  }
}

RankTableView::RankTableView(QWidget* parent) : TraceView(parent) {
  grid_ = new RankGrid;
  colorBar_ = new RankColorBar;
  title_ = new QLabel;
  title_->setWordWrap(true);  // never cut: a long title takes a second line
  title_->setAlignment(Qt::AlignCenter);
  measure_ = new QComboBox;
  measure_->addItem(tr("effective rank"), int(RankGrid::Measure::EffectiveRank));
  measure_->addItem(tr("numerical rank"), int(RankGrid::Measure::NumericalRank));
  measure_->addItem(tr("row entropy"), int(RankGrid::Measure::Entropy));
  measure_->setToolTip(tr("What the colour shows"));
  legend_ =
      new QLabel(tr("r: numerical rank (numpy's convention) · e: effective rank exp(H(σ/Σσ)) · "
                    "H: mean row entropy of the attention (nats)."));
  legend_->setWordWrap(true);
  computeButton_ = new QPushButton(tr("Compute ranks"));
  computeButton_->hide();
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(200);
  progress_->hide();
  job_ = new BackgroundJob(this);

  auto* colourBy = new QLabel(tr("Colour by"));
  // The title names the measure: the chooser is a control, not part of a figure.
  colourBy->setProperty(kScreenOnlyProperty, true);
  measure_->setProperty(kScreenOnlyProperty, true);
  auto* top = new QHBoxLayout;
  top->addWidget(colourBy);
  top->addWidget(measure_);
  top->addStretch(1);
  top->addWidget(computeButton_);
  top->addWidget(progress_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(title_);
  layout->addWidget(grid_, 1);
  layout->addWidget(colorBar_);
  layout->addWidget(legend_);

  connect(measure_, &QComboBox::currentIndexChanged, this, [this] {
    grid_->setMeasure(static_cast<RankGrid::Measure>(measure_->currentData().toInt()));
    updateScale();
  });
  connect(grid_, &RankGrid::cellClicked, this, &TraceView::selectionRequested);
  connect(computeButton_, &QPushButton::clicked, this, &RankTableView::compute);
  connect(job_, &BackgroundJob::progress, this, [this](double f) { progress_->setValue(int(100 * f)); });
  connect(job_, &BackgroundJob::busyChanged, this, [this](bool busy) {
    progress_->setVisible(busy && result_ && result_->ok() && result_->trace().tokenCount() > 256);
  });
  setFontScale(1.0);
  updateScale();
}

void RankTableView::updateScale() {
  // The same fixed scales as the grid: 0 … n for ranks, 0 … log n for entropy.
  const int n = result_ && result_->ok() ? std::max(1, result_->trace().tokenCount()) : 1;
  const auto m = static_cast<RankGrid::Measure>(measure_->currentData().toInt());
  const bool entropy = m == RankGrid::Measure::Entropy;
  colorBar_->setScale(entropy ? std::log(std::max(2, n)) : n, !entropy, measure_->currentText());
  title_->setText(tr("Head ranks · %1 of every head · n = %2 tokens").arg(measure_->currentText()).arg(n));
}

void RankTableView::showResult(const ResultPtr& result) {
  result_ = result;
  if (!result || !result->ok()) return;
  updateScale();
  const int n = result->trace().tokenCount();
  if (n > SpectrumView::kOnDemandTokens) {
    job_->cancel();
    grid_->setMessage(tr("%1 tokens: one %1×%1 SVD per head takes a while. Press “Compute ranks”.").arg(n));
    computeButton_->show();
    return;
  }
  compute();
}

void RankTableView::compute() {
  if (!result_ || !result_->ok()) return;
  computeButton_->hide();
  const ResultPtr r = result_;
  job_->run<HeadRankTable>([r](const RunControl& c) { return headRankTable(r->trace(), c); },
                           [this, r](const HeadRankTable& t) { grid_->setTable(t, r->layer(), r->head()); },
                           [this](const QString& e) { grid_->setMessage(tr("Ranks failed: %1").arg(e)); });
}

void RankTableView::setFontScale(double scale) {
  grid_->setFontScale(scale);
  colorBar_->setFontScale(scale);
  QFont f = legend_->font();
  f.setPointSizeF(9 * scale);
  legend_->setFont(f);
  f.setPointSizeF(10.5 * scale);
  f.setBold(true);
  title_->setFont(f);
}

}  // namespace attnlab::ui
