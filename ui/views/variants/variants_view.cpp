#include "ui/views/variants/variants_view.h"

#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "ui/views/variants/variant_controls.h"

namespace attnlab::ui {
namespace {

const QColor kPositive(33, 102, 172), kTrig(214, 96, 77);

/// The inputs of the error-vs-m curve (not m, the kind or the orthogonality: the curve has them all).
bool sameCurveSettings(const VariantSettings& a, const VariantSettings& b) {
  return a.temperature == b.temperature && a.featureSeed == b.featureSeed && a.stabilize == b.stabilize &&
         a.epsilon == b.epsilon && a.window == b.window && a.causal == b.causal && a.redraws == b.redraws;
}

QString formatMetric(double v) {
  if (!std::isfinite(v)) return QStringLiteral("∞");
  return QString::number(v, 'g', 4);
}

}  // namespace

VariantsView::VariantsView(QWidget* parent) : TraceView(parent), comparisonJob_(this), curveJob_(this) {
  controls_ = new VariantControls;
  connect(controls_, &VariantControls::edited, this, &TraceView::paramsRequested);

  // One panel per variant (its map above its difference from softmax), as many side by side as the width allows.
  tileArea_ = new QWidget;
  tileGrid_ = new PanelLayout(200, 340, tileArea_);
  tileGrid_->setSpacing(4);

  table_ = new QTableWidget(0, 7);
  table_->setHorizontalHeaderLabels({tr("variant"), tr("rank"), tr("entropy (nats)"), tr("top-k share"),
                                     tr("‖Â−A‖/‖A‖"), tr("output MSE"), tr("parameters")});
  // Columns share the table's width (headers elide on a narrow view): never a horizontal scroll bar.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->horizontalHeader()->setMinimumSectionSize(40);
  table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setToolTip(tr("Metrics of each variant's matrix; errors are against softmax with the same mask."));

  curvePlot_ = new QCustomPlot;
  curvePlot_->plotLayout()->insertRow(0);
  curvePlot_->plotLayout()->addElement(
      0, 0, new QCPTextElement(curvePlot_, tr("Performer: error vs m"), QFont(font().family(), 10, QFont::Bold)));
  auto logTicker = QSharedPointer<QCPAxisTickerLog>::create();
  for (QCPAxis* a : {curvePlot_->xAxis, curvePlot_->yAxis}) {
    a->setScaleType(QCPAxis::stLogarithmic);
    a->setTicker(logTicker);
  }
  curvePlot_->xAxis->setLabel(tr("random features m"));
  curvePlot_->yAxis->setLabel(tr("‖Â − A‖ / ‖A‖"));
  // Legend under the axes in two columns: inside, it would hide the curves.
  curvePlot_->legend->setVisible(true);
  curvePlot_->legend->setFont(QFont(font().family(), 8));
  curvePlot_->axisRect()->insetLayout()->take(curvePlot_->legend);
  curvePlot_->plotLayout()->addElement(2, 0, curvePlot_->legend);
  curvePlot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  curvePlot_->legend->setWrap(2);
  curvePlot_->plotLayout()->setRowStretchFactor(2, 0.001);

  status_ = new QLabel;
  status_->setWordWrap(true);

  // The table and the error curve side by side when there is room, stacked when not; the page scrolls vertically.
  auto* bottom = bottom_ = new QWidget;
  auto* bottomLayout = new PanelLayout(360, 220, bottom);
  bottomLayout->addWidget(table_);
  bottomLayout->addWidget(curvePlot_);
  table_->setMinimumHeight(80);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  controls_->setProperty(kScreenOnlyProperty, true);  // a figure holds the maps and the table
  layout->addWidget(controls_);
  layout->addWidget(tileArea_, 3);
  layout->addWidget(bottom, 2);
  layout->addWidget(status_);
}

void VariantsView::resizeEvent(QResizeEvent* event) {
  TraceView::resizeEvent(event);
  bottom_->setVisible(width() >= kFullWidth && height() >= kFullHeight);
}

void VariantsView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  result_ = result;
  controls_->setParams(result->params);
  const HeadTrace& h = result->trace().layers[result->layer()].heads[result->head()];
  auto in = std::make_shared<Input>(Input{toDouble(h.q), toDouble(h.k()), toDouble(h.v()), result->trace().causal});
  const VariantSettings s = result->params.variants;
  const QStringList tokens = result->tokenLabels();
  comparisonJob_.run<std::shared_ptr<const VariantComparison>>(
      [in, s](const RunControl& c) {
        return std::make_shared<const VariantComparison>(compareVariants(in->q, in->k, in->v, s, in->causal, c));
      },
      [this, tokens](const std::shared_ptr<const VariantComparison>& c) {
        comparison_ = c;
        drawComparison(*c, tokens);
        drawCurve();
      },
      [this](const QString& error) { status_->setText(tr("⚠ %1").arg(error)); });
  if (!curve_ || curveInputsChanged(*in, s)) {
    curveInput_ = *in;
    curveSettings_ = s;
    curveJob_.run<std::shared_ptr<const PerformerCurve>>(
        [in, s](const RunControl& c) {
          return std::make_shared<const PerformerCurve>(performerCurve(in->q, in->k, s, in->causal, kMaxFeatures, c));
        },
        [this](const std::shared_ptr<const PerformerCurve>& c) {
          curve_ = c;
          drawCurve();
        });
  }
}

bool VariantsView::curveInputsChanged(const Input& in, const VariantSettings& s) const {
  return !sameCurveSettings(s, curveSettings_) || in.causal != curveInput_.causal || in.q != curveInput_.q ||
         in.k != curveInput_.k;
}

void VariantsView::ensureTiles(std::size_t count) {
  if (tiles_.size() == count) return;
  for (MatrixPlot* p : tiles_) delete p->parentWidget();  // the variant's panel, its two plots with it
  tiles_.clear();
  diffs_.clear();
  for (std::size_t i = 0; i < count; ++i) {
    auto* panel = new QWidget(tileArea_);
    auto* tile = new MatrixPlot;
    auto* diff = new MatrixPlot;
    diff->setColorMap(ColorMap::Magma);
    for (MatrixPlot* p : {tile, diff}) {
      p->setMinimumSize(60, 60);  // eight tiles must fit a 1200-pixel figure
      p->setFontScale(fontScale_);
      p->setColorScaleVisible(i + 1 == count);  // one scale per row, at its end
    }
    auto* pair = new QVBoxLayout(panel);
    pair->setContentsMargins(0, 0, 0, 0);
    pair->setSpacing(2);
    pair->addWidget(tile, 3);
    pair->addWidget(diff, 2);
    tileGrid_->addWidget(panel);
    tiles_.push_back(tile);
    diffs_.push_back(diff);
  }
}

void VariantsView::drawComparison(const VariantComparison& c, const QStringList& tokens) {
  ensureTiles(c.variants.size());
  // One colour scale for every matrix (trigonometric weights may be negative), one for differences.
  double lo = 0, hi = 1e-12, diffHi = 1e-12;
  std::vector<MatD> diffs;
  for (const VariantResult& r : c.variants) {
    if (r.attention.size() == 0) continue;
    lo = std::min(lo, r.attention.minCoeff());
    hi = std::max(hi, r.attention.maxCoeff());
    diffs.push_back((r.attention - c.reference).cwiseAbs());
    diffHi = std::max(diffHi, diffs.back().maxCoeff());
  }
  // Attention weights live in [0, 1]; trigonometric Performer can leave that range by orders of
  // magnitude (a near-zero normaliser), which would flatten every other tile: clip the shared scale.
  const bool clipped = lo < -1 || hi > 1 || diffHi > 1 || !std::isfinite(lo + hi + diffHi);
  lo = std::isfinite(lo) ? std::max(lo, -1.0) : 0.0;
  hi = std::isfinite(hi) ? std::min(hi, 1.0) : 1.0;
  diffHi = std::isfinite(diffHi) ? std::min(diffHi, 1.0) : 1.0;
  for (std::size_t i = 0; i < c.variants.size() && i < diffs.size(); ++i) {
    const VariantResult& r = c.variants[i];
    tiles_[i]->setTitle(tr("%1\nrank %2").arg(QString::fromStdString(r.name)).arg(r.metrics.rank));
    tiles_[i]->setMatrix(r.attention.cast<float>(), tokens, tokens);
    tiles_[i]->setFixedRange(lo, hi);
    diffs_[i]->setTitle(
        tr("|Â − A|, %1\nrel. error %2").arg(QString::fromStdString(r.name), formatMetric(r.metrics.relError)));
    diffs_[i]->setMatrix(diffs[i].cast<float>(), tokens, tokens);
    diffs_[i]->setFixedRange(0, diffHi);
  }
  fillTable(c);
  QString mask = c.mask.causal ? tr("causal") : QString();
  if (c.mask.window >= 0) mask += (mask.isEmpty() ? "" : " + ") + tr("window |i − j| ≤ %1").arg(c.mask.window);
  QString where;
  if (result_) {
    const int l = result_->layer(), h = result_->head();
    const HeadTrace& head = result_->trace().layers[l].heads[h];
    // Performer's variance grows like e^{‖q'+k'‖²} with q' = q·d^{-1/4}: say how large that is here.
    const double norm = (head.q.rowwise().squaredNorm().mean() + head.k().rowwise().squaredNorm().mean()) /
                        std::sqrt(static_cast<double>(head.q.cols()));
    where = tr("Layer %1 · head %2 · head size d = %3 · mean ‖q‖²/√d + ‖k‖²/√d = %4 (Performer's variance grows like "
               "exp(‖q+k‖²/√d)) · ")
                .arg(l)
                .arg(h)
                .arg(head.q.cols())
                .arg(norm, 0, 'f', 2);
  }
  status_->setText(where +
                   tr("mask: %1. Top row: each variant's attention Â, one colour scale for all; bottom row: "
                      "|Â − A| against softmax A (rel. error ‖Â − A‖/‖A‖, Frobenius norms), on its own scale%2.")
                       .arg(mask.isEmpty() ? tr("none") : mask)
                       .arg(clipped ? tr(" (scales clipped to [−1, 1]: some weights lie outside)") : QString()));
}

void VariantsView::fillTable(const VariantComparison& c) {
  // With ResizeToContents every setItem re-measured every cell's text (the header asks each column's
  // size hint on every change): 40 % of the view's draw. Fill with fixed sections, measure once at the end.
  QHeaderView* header = table_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::Interactive);
  table_->setRowCount(static_cast<int>(c.variants.size()));
  for (int i = 0; i < static_cast<int>(c.variants.size()); ++i) {
    const VariantResult& r = c.variants[static_cast<std::size_t>(i)];
    const QStringList cells{QString::fromStdString(r.name),       QString::number(r.metrics.rank),
                            formatMetric(r.metrics.entropy),      formatMetric(r.metrics.sparsity),
                            formatMetric(r.metrics.relError),     formatMetric(r.metrics.outputMse),
                            QString::fromStdString(r.description)};
    for (int col = 0; col < cells.size(); ++col) {
      QTableWidgetItem* item = table_->item(i, col);
      if (!item) {
        item = new QTableWidgetItem;
        if (col > 0 && col < 6) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(i, col, item);
      }
      item->setText(cells[col]);
    }
  }
  const QString topK = tr("top-%1 share").arg(c.topK);
  if (!table_->horizontalHeaderItem(3) || table_->horizontalHeaderItem(3)->text() != topK)
    table_->setHorizontalHeaderItem(3, new QTableWidgetItem(topK));
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void VariantsView::drawCurve() {
  curvePlot_->clearGraphs();
  curvePlot_->clearItems();
  if (curve_) {
    for (const CurveSeries& s : curve_->series) {
      QCPGraph* g = curvePlot_->addGraph();
      QPen pen(s.kind == FeatureKind::Positive ? kPositive : kTrig, 2);
      if (s.orthogonal) pen.setStyle(Qt::DashLine);
      g->setPen(pen);
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
      g->setName(QString("%1 %2").arg(toString(s.kind), s.orthogonal ? tr("orth.") : tr("iid")));
      for (std::size_t i = 0; i < curve_->features.size(); ++i) {
        const double e = s.meanError[i];
        if (!(e > 0) || !std::isfinite(e)) continue;  // a log axis has no place for 0 or ∞
        g->addData(curve_->features[i], e);
      }
    }
  }
  if (comparison_) {
    // The tiles' own draws, on the curve: one sample of what the curve averages.
    for (const VariantResult& r : comparison_->variants) {
      if (r.name.rfind("performer", 0) != 0 || !(r.metrics.relError > 0) || !std::isfinite(r.metrics.relError))
        continue;
      QCPGraph* g = curvePlot_->addGraph();
      g->setLineStyle(QCPGraph::lsNone);
      const bool trig = r.description.find("trig") != std::string::npos;
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, trig ? kTrig : kPositive, 12));
      g->setName(tr("tile: %1").arg(QString::fromStdString(r.name)));
      g->addData(result_ ? result_->params.variants.features : 1, r.metrics.relError);
    }
  }
  bool found = false;
  const QCPRange y = curvePlot_->yAxis->range().expanded(0);  // keep the last range without data
  QCPRange all;
  for (int i = 0; i < curvePlot_->graphCount(); ++i) {
    bool ok = false;
    const QCPRange r = curvePlot_->graph(i)->getValueRange(ok, QCP::sdBoth);
    if (!ok) continue;
    all = found ? QCPRange(std::min(all.lower, r.lower), std::max(all.upper, r.upper)) : r;
    found = true;
  }
  curvePlot_->yAxis->setRange(found ? QCPRange(all.lower / 1.5, all.upper * 1.5) : y);
  curvePlot_->xAxis->setRange(0.7, kMaxFeatures * 1.4);
  if (result_) {
    auto* line = new QCPItemStraightLine(curvePlot_);
    const double m = result_->params.variants.features;
    line->point1->setCoords(m, 1e-300);
    line->point2->setCoords(m, 1e300);
    line->setPen(QPen(Qt::darkGray, 1.5, Qt::DotLine));
    auto* label = new QCPItemText(curvePlot_);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(m, 0.02);
    label->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
    label->setText(tr(" m = %1 (R = %2)").arg(m).arg(curve_ ? curve_->redraws : result_->params.variants.redraws));
    label->setColor(Qt::darkGray);
  }
  curvePlot_->replot(QCustomPlot::rpQueuedReplot);
}

void VariantsView::setFontScale(double scale) {
  fontScale_ = scale;
  controls_->setFontScale(scale);
  for (MatrixPlot* p : tiles_) p->setFontScale(scale);
  for (MatrixPlot* p : diffs_) p->setFontScale(scale);
  QFont f = table_->font();
  f.setPointSizeF(9 * scale);
  table_->setFont(f);
  status_->setFont(f);
  curvePlot_->xAxis->setLabelFont(f);
  curvePlot_->yAxis->setLabelFont(f);
  curvePlot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace attnlab::ui
