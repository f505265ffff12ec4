#include "ui/views/inside_head/matrix_grid_view.h"

#include <QLabel>
#include <QLocale>

#include "core/model/layer_outputs.h"
#include "core/session/token_pins.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/common/head_names.h"

#include <algorithm>
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
        if (!crossShown_) requestPinClick(result_, t, (m & (Qt::ControlModifier | Qt::ShiftModifier)) != 0);
      });
      connect(plot, &MatrixPlot::tokenLabelHovered, this, [this](int t) {
        if (!crossShown_) hoverToken(t);
      });
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
  // Cross-attention's panels have target rows (Q, outputs) and source rows (K, V): pins and the hovered token index the
  // one text of a stack, so none is marked there.
  crossShown_ = showsCross(*result);
  pins_ = crossShown_ ? std::vector<int>() : pinsWithin(result->params.selection.pinned, result->trace().tokenCount());
  for (MatrixPlot* p : plots_) p->setTokenMarks(pins_, hoveredToken());
}

void MatrixGridView::onHoverChanged(int token) {
  if (crossShown_) return;
  for (MatrixPlot* p : plots_) p->setTokenMarks(pins_, token);
}

void HeadOutputsView::showCross(const ResultPtr& result) {
  // The decoder layer's cross-attention: each head's A·V [n_tgt, d_head] (a weighted mean of the encoder's values, one
  // row per target token) and what the layer adds to the decoder's stream [n_tgt, d].
  const auto& cross = *crossLayersOf(*result);
  const int l = std::clamp(result->layer(), 0, static_cast<int>(cross.size()) - 1);
  const CrossLayerTrace& layer = cross[static_cast<std::size_t>(l)];
  const QStringList targets = crossTargets(*result);
  const int heads = static_cast<int>(layer.heads.size());
  const Eigen::Index dh = heads ? layer.concat.cols() / heads : 0;
  std::vector<Panel> panels;
  for (int h = 0; h < heads; ++h) {
    const Mat out = layer.concat.middleCols(h * dh, dh);
    panels.push_back({tr("%1 cross output (target × d_head) [%2 × %3]%4")
                          .arg(headLabel(l, h))
                          .arg(out.rows())
                          .arg(out.cols())
                          .arg(stackTag(*result)),
                      out, targets, indexLabels(static_cast<int>(out.cols()), ""), MatrixPlot::Range::Symmetric,
                      ColorMap::Diverging, "cross_output_L" + std::to_string(l) + "_H" + std::to_string(h)});
  }
  panels.push_back({tr("L%1 cross unified output: heads concatenated · Wo (target × d) [%2 × %3]%4")
                        .arg(l)
                        .arg(layer.attentionOut.rows())
                        .arg(layer.attentionOut.cols())
                        .arg(stackTag(*result)),
                    layer.attentionOut, targets, indexLabels(static_cast<int>(layer.attentionOut.cols()), ""),
                    MatrixPlot::Range::Symmetric, ColorMap::Diverging, "cross_attention_out_L" + std::to_string(l)});
  showPanels(panels, std::min(heads, 4), true);
  markTokens(result);
}

void HeadOutputsView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  if (showsCross(*result)) {
    showCross(result);
    return;
  }
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

void QkvView::showCross(const ResultPtr& result) {
  // Cross-attention's head: Q from the decoder's stream [n_tgt, d_head], K and V from the encoder's output
  // [n_src, d_head], and the scores the forward pass kept (Q·Kᵀ·scale, before softmax) [n_tgt, n_src].
  const int l = result->layer(), h = result->head();
  const HeadTrace& head = *crossHead(*result, l, h);
  const QStringList targets = crossTargets(*result), sources = crossSources(*result);
  const QStringList dims = indexLabels(static_cast<int>(head.q.cols()), "");
  const QString where = tr("%1 cross").arg(headLabel(l, h));
  const std::string id = "_L" + std::to_string(l) + "_H" + std::to_string(h);
  const auto sym = MatrixPlot::Range::Symmetric;
  const auto div = ColorMap::Diverging;
  std::vector<Panel> panels = {
      {tr("%1 queries Q from the decoder (target) [%2 × %3]").arg(where).arg(head.q.rows()).arg(head.q.cols()), head.q,
       targets, dims, sym, div, "cross_q" + id},
      {tr("%1 keys K from the encoder (source) [%2 × %3]").arg(where).arg(head.k().rows()).arg(head.k().cols()),
       head.k(), sources, dims, sym, div, "cross_k" + id},
      {tr("%1 values V from the encoder (source) [%2 × %3]").arg(where).arg(head.v().rows()).arg(head.v().cols()),
       head.v(), sources, dims, sym, div, "cross_v" + id},
      {tr("%1 scores Q·Kᵀ (target × source, before softmax) [%2 × %3]")
           .arg(where)
           .arg(head.scores.rows())
           .arg(head.scores.cols()),
       head.scores, targets, sources, sym, div, "cross_scores" + id, true}};
  showPanels(panels, 2);
  markTokens(result);
}

void QkvView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  if (showsCross(*result)) {
    showCross(result);
    return;
  }
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
