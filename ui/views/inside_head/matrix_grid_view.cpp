#include "ui/views/inside_head/matrix_grid_view.h"

#include <QLabel>
#include <QLocale>

#include "core/model/layer_outputs.h"
#include "core/session/token_pins.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/common/head_names.h"

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

ViewNumbers MatrixGridView::numbers(const ComputeResult& result) const {
  if (shown_.empty()) return TraceView::numbers(result);
  ViewNumbers n = numbersFrame(result, displayName());
  for (std::size_t i = 0; i < shown_.size(); ++i) {
    const Panel& p = shown_[i];
    n.matrices.push_back(labelled(p.name.empty() ? "panel" + std::to_string(i) : p.name, p.title,
                                  p.matrix.cast<double>(), p.rowLabels, p.colLabels));
  }
  return n;
}

void MatrixGridView::showNote(const QString& text, int row, int col) {
  if (!note_) {
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    note_->setAlignment(Qt::AlignCenter);
  }
  grid_->addWidget(note_, row, col);
  note_->setText(text);
  note_->show();
}

QString MatrixGridView::note() const { return note_ && !note_->isHidden() ? note_->text() : QString(); }

void MatrixGridView::showPanels(const std::vector<Panel>& panels, int columns, bool lastSpansRow) {
  if (note_) {  // a note belongs to the panels it was shown with
    grid_->removeWidget(note_);
    note_->hide();
  }
  shown_ = panels;
  if (plots_.size() != panels.size()) {
    for (MatrixPlot* p : plots_) delete p;
    plots_.clear();
    const int count = static_cast<int>(panels.size());
    for (int i = 0; i < count; ++i) {
      auto* plot = new MatrixPlot(this);
      plot->setFontScale(fontScale_);
      connect(plot, &MatrixPlot::tokenLabelClicked, this, [this](int t, Qt::KeyboardModifiers m) {
        requestPinClick(result_, t, (m & (Qt::ControlModifier | Qt::ShiftModifier)) != 0);
      });
      connect(plot, &MatrixPlot::tokenLabelHovered, this, [this](int t) { hoverToken(t); });
      if (lastSpansRow && i == count - 1)
        grid_->addWidget(plot, (count - 2) / columns + 1, 0, 1, columns);
      else
        grid_->addWidget(plot, i / columns, i % columns);
      plots_.push_back(plot);
    }
    for (int c = 0; c < grid_->columnCount(); ++c) grid_->setColumnStretch(c, c < columns ? 1 : 0);
    for (int r = 0; r < grid_->rowCount(); ++r) grid_->setRowStretch(r, 1);
  }
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const Panel& p = panels[i];
    plots_[i]->setColorMap(p.map);
    plots_[i]->setRangeMode(p.range);
    plots_[i]->setTitle(p.title);
    plots_[i]->setTokenAxes(true, p.tokenCols);
    plots_[i]->setMatrix(p.matrix, p.rowLabels, p.colLabels);
  }
}

void MatrixGridView::markTokens(const ResultPtr& result) {
  result_ = result;
  pins_ = pinsWithin(result->params.selection.pinned, result->trace().tokenCount());
  for (MatrixPlot* p : plots_) p->setTokenMarks(pins_, hoveredToken());
}

void MatrixGridView::onHoverChanged(int token) {
  for (MatrixPlot* p : plots_) p->setTokenMarks(pins_, token);
}

void HeadOutputsView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  const int l = result->layer();
  const LayerTrace& layer = result->trace().layers[l];
  const QStringList tokens = result->tokenLabels();
  std::vector<Panel> panels;
  for (std::size_t h = 0; h < layer.heads.size(); ++h) {
    const Mat out = layer.headOutput(static_cast<int>(h));
    panels.push_back(
        {tr("%1 output, n×%2%3").arg(headLabel(l, static_cast<int>(h))).arg(out.cols()).arg(stackTag(*result)), out,
         tokens, indexLabels(static_cast<int>(out.cols()), ""), MatrixPlot::Range::Symmetric, ColorMap::Diverging,
         "output_L" + std::to_string(l) + "_H" + std::to_string(h)});
  }
  const Mat unified = attentionOutOf(result->trace(), l);  // a long input's: recomputed from concat
  panels.push_back(
      {tr("L%1 unified output: heads concatenated · Wo (n × %2)%3").arg(l).arg(unified.cols()).arg(stackTag(*result)),
       unified, tokens, indexLabels(static_cast<int>(unified.cols()), ""), MatrixPlot::Range::Symmetric,
       ColorMap::Diverging, "attention_out_L" + std::to_string(l)});
  const int heads = static_cast<int>(layer.heads.size());
  const int columns = std::min(heads, 4);
  showPanels(panels, columns, true);
  markTokens(result);
}

void QkvView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  const int l = result->layer(), h = result->head();
  const HeadTrace& head = result->trace().layers[l].heads[h];
  const QStringList tokens = result->tokenLabels();
  const QStringList dims = indexLabels(static_cast<int>(head.q.cols()), "");
  const QString where = headLabel(l, h) + stackTag(*result);  // + an encoder–decoder's stack
  const std::string id = "_L" + std::to_string(l) + "_H" + std::to_string(h);
  const auto sym = MatrixPlot::Range::Symmetric;
  const auto div = ColorMap::Diverging;
  // Grouped-query attention: K and V belong to a kv head that several query heads read; say which.
  const Trace& trace = result->trace();
  QString kvWhere = where;
  std::string kvId = id;
  if (trace.kvHeadCount() != trace.headCount()) {
    const int g = trace.kvHeadOf(h), group = trace.headCount() / trace.kvHeadCount();
    kvWhere = tr("L%1 kv head %2 (shared by H%3–H%4)").arg(l).arg(g).arg(g * group).arg(g * group + group - 1);
    kvId = "_L" + std::to_string(l) + "_KV" + std::to_string(g);
  }
  std::vector<Panel> panels = {{tr("%1 queries Q  [%2 × %3]").arg(where).arg(head.q.rows()).arg(head.q.cols()), head.q,
                                tokens, dims, sym, div, "q" + id},
                               {tr("%1 keys K  [%2 × %3]").arg(kvWhere).arg(head.k().rows()).arg(head.k().cols()),
                                head.k(), tokens, dims, sym, div, "k" + kvId},
                               {tr("%1 values V  [%2 × %3]").arg(kvWhere).arg(head.v().rows()).arg(head.v().cols()),
                                head.v(), tokens, dims, sym, div, "v" + kvId}};
  // The n × n scores of a long text belong to the heatmap's pyramid, not to a cell-by-cell plot.
  const bool scores = tokens.size() <= kMaxScoresTokens;
  if (scores)
    panels.push_back(
        {tr("%1 scores Q·Kᵀ%2 (before softmax)").arg(where, result->trace().causal ? tr(", mask not applied") : ""),
         *result->scoresMap(l, h), tokens, tokens, sym, div, "scores" + id, true});
  showPanels(panels, 2);
  if (!scores)  // the fourth place says why it is empty
    showNote(tr("The scores Q·Kᵀ get a panel up to %1 tokens; this text has %2, whose %3 × %3 scores no plot draws "
                "cell by cell. The heatmap shows this head's attention zoomable, with every token.")
                 .arg(QLocale(QLocale::English).toString(kMaxScoresTokens))
                 .arg(QLocale(QLocale::English).toString(tokens.size()))
                 .arg(QLocale(QLocale::English).toString(tokens.size())),
             1, 1);
  markTokens(result);
}

}  // namespace attnlab::ui
