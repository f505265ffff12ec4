#include "ui/matrix_grid_view.h"

#include <cmath>

namespace attnlab::ui {

MatrixGridView::MatrixGridView(QWidget* parent) : TraceView(parent) {
  grid_ = new QGridLayout(this);
  grid_->setContentsMargins(2, 2, 2, 2);
  grid_->setSpacing(4);
}

void MatrixGridView::setFontScale(double scale) {
  fontScale_ = scale;
  for (MatrixPlot* p : plots_) p->setFontScale(scale);
}

QStringList MatrixGridView::indexLabels(int n, const QString& prefix) {
  QStringList l;
  for (int i = 0; i < n; ++i) l << prefix + QString::number(i);
  return l;
}

void MatrixGridView::showPanels(const std::vector<Panel>& panels, int columns) {
  if (plots_.size() != panels.size()) {
    for (MatrixPlot* p : plots_) delete p;
    plots_.clear();
    for (std::size_t i = 0; i < panels.size(); ++i) {
      auto* plot = new MatrixPlot(this);
      plot->setFontScale(fontScale_);
      grid_->addWidget(plot, static_cast<int>(i) / columns, static_cast<int>(i) % columns);
      plots_.push_back(plot);
    }
  }
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const Panel& p = panels[i];
    plots_[i]->setColorMap(p.map);
    plots_[i]->setRangeMode(p.range);
    plots_[i]->setTitle(p.title);
    plots_[i]->setMatrix(p.matrix, p.rowLabels, p.colLabels);
  }
}

void HeadOutputsView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  const int l = result->layer();
  const LayerTrace& layer = result->trace().layers[l];
  const QStringList tokens = result->tokenLabels();
  std::vector<Panel> panels;
  for (std::size_t h = 0; h < layer.heads.size(); ++h) {
    const Mat& out = layer.heads[h].output;
    panels.push_back({tr("L%1 head %2 output  [n × d_head]").arg(l).arg(h), out, tokens,
                      indexLabels(static_cast<int>(out.cols()), "")});
  }
  panels.push_back({tr("L%1 unified output (heads concatenated · Wo)  [n × d]").arg(l), layer.attentionOut, tokens,
                    indexLabels(static_cast<int>(layer.attentionOut.cols()), "")});
  const int columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(panels.size()))));
  showPanels(panels, columns);
}

void QkvView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  const int l = result->layer(), h = result->head();
  const HeadTrace& head = result->trace().layers[l].heads[h];
  const QStringList tokens = result->tokenLabels();
  const QStringList dims = indexLabels(static_cast<int>(head.q.cols()), "");
  const QString where = tr("L%1 H%2").arg(l).arg(h);
  showPanels({{tr("%1 queries Q  [n × d_head]").arg(where), head.q, tokens, dims},
              {tr("%1 keys K  [n × d_head]").arg(where), head.k, tokens, dims},
              {tr("%1 values V  [n × d_head]").arg(where), head.v, tokens, dims},
              {tr("%1 scores Q·Kᵀ%2 (before softmax)").arg(where, result->trace().causal ? tr(", mask not applied") : ""),
               head.scores, tokens, tokens}},
             2);
}

}  // namespace attnlab::ui
