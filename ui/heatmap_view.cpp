#include "ui/heatmap_view.h"

#include <QVBoxLayout>

namespace attnlab::ui {

HeatmapView::HeatmapView(QWidget* parent) : TraceView(parent) {
  plot_ = new MatrixPlot(this);
  plot_->setRangeMode(MatrixPlot::Range::UnitInterval);
  plot_->setAxisTitles(tr("query (attends from)"), tr("key (attends to)"));
  hover_ = new QLabel(hoverHint(), this);
  hover_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hover_->setProperty(kScreenOnlyProperty, true);  // a hint for the mouse, not part of a figure
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(plot_, 1);
  layout->addWidget(hover_);
  connect(plot_, &MatrixPlot::cellHovered, this, [this](int r, int c, double v) {
    if (r < 0 || !result_ || !result_->ok()) {
      hover_->setText(hoverHint());  // a read-out never outlives the cell or the sentence it names
      return;
    }
    const QStringList labels = result_->tokenLabels();
    hover_->setText(tr("query “%1” [%2] → key “%3” [%4]: weight %5")
                        .arg(labels.value(r))
                        .arg(r)
                        .arg(labels.value(c))
                        .arg(c)
                        .arg(v, 0, 'f', 4));
  });
}

QString HeatmapView::hoverHint() const { return tr("Hover a cell to read its weight."); }

void HeatmapView::showResult(const ResultPtr& result) {
  result_ = result;
  // The plot re-reads the cell under a still cursor (new tokens) or clears the read-out; until then
  // the strip must not name the previous sentence's tokens.
  hover_->setText(hoverHint());
  if (!result || !result->ok()) return;
  const int l = result->layer(), h = result->head();
  const QStringList labels = result->tokenLabels();
  plot_->setTitle(
      tr("Attention · layer %1 · head %2%3").arg(l).arg(h).arg(result->trace().causal ? tr(" · causal") : ""));
  plot_->setMatrix(result->trace().layers[l].heads[h].attention, labels, labels);
}

ViewNumbers HeatmapView::numbers(const ComputeResult& result) const {
  // Exactly the matrix drawn: the selected head's attention, rows = queries, columns = keys.
  return TraceView::numbers(result);
}

void HeatmapView::setFontScale(double scale) {
  plot_->setFontScale(scale);
  QFont f = hover_->font();
  f.setPointSizeF(9 * scale);
  hover_->setFont(f);
}

}  // namespace attnlab::ui
