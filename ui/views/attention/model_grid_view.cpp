#include "ui/views/attention/model_grid_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "core/session/token_pins.h"
#include "ui/plots/cell_painter.h"
#include "ui/plots/view_style.h"
#include "ui/plots/window_shade.h"
#include "ui/plots/zoomable_heatmap_render.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/common/head_names.h"

namespace attnlab::ui {
namespace {

constexpr int kMargin = 6;
constexpr double kMaxCellStretch = 1.5;  ///< a thumbnail's sides differ at most 3 : 2

/// One pixel per weight, coloured on [0, hi]: hi = 1 (the unit scale) makes heads comparable at a
/// glance; the per-map and shared scales pass a map's or the grid's largest weight.
/// logFloor > 0: the log scale from that floor instead (attention_scale.h).
QImage attentionImage(const Mat& a, ColorMap map, float hi, double logFloor) {
  QImage img(static_cast<int>(a.cols()), static_cast<int>(a.rows()), QImage::Format_RGB32);
  const std::vector<QRgb>& table = colorTable(map);
  const float perLevel = 1023.0f / std::max(hi, 1e-6f);
  for (int i = 0; i < a.rows(); ++i) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(i));
    for (int j = 0; j < a.cols(); ++j) {
      const float w = a(i, j);
      line[j] = logFloor > 0 ? lookup(table, logPosition(w, logFloor))
                             : table[w > 0 ? std::min(1023, static_cast<int>(w * perLevel + 0.5f)) : 0];
    }
  }
  return img;
}

/// The colour bar's cells: 256 levels, the top level first (drawn top to bottom).
QImage barImage(ColorMap map) {
  QImage img(1, 256, QImage::Format_RGB32);
  for (int k = 0; k < 256; ++k) img.setPixel(0, 255 - k, colorAt(map, (k + 0.5) / 256));
  return img;
}

}  // namespace

ModelGridView::ModelGridView(QWidget* parent) : TraceView(parent) {
  setMinimumSize(160, 120);
  setToolTip(
      tr("Every layer (rows) and head (columns). Click a head to select it; Ctrl+click switches it off "
         "(ablation: its output is zeroed, or set to its mean, before the output projection)."));
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, [this] { showResult(result_); });
}

void ModelGridView::showResult(const ResultPtr& result) {
  result_ = result;
  thumbs_.clear();
  layers_ = heads_ = 0;
  cross_ = result ? crossLayersOf(*result) : nullptr;
  crossTargets_ = cross_ ? crossTargets(*result) : QStringList();
  crossSources_ = cross_ ? crossSources(*result) : QStringList();
  if (cross_) {
    showCross();
  } else if (result && result->ok()) {
    const Trace& t = result->trace();
    layers_ = t.layerCount();
    heads_ = t.headCount();
    const AttentionScale scale = ViewStyle::instance().attentionScale();
    // A long input keeps no maps (trace.h): its thumbnails are the maps pooled (max) in the forward pass.
    const auto drawn = [](const HeadTrace& h) -> const Mat& {
      return h.keepsMaps() ? h.attention : h.summary.thumbMax;
    };
    const auto largest = [&](const HeadTrace& h) {
      return h.keepsMaps() ? (h.attention.size() ? h.attention.maxCoeff() : 0.f) : h.summary.maxWeight;
    };
    float gridMax = 0;
    for (const LayerTrace& l : t.layers)
      for (const HeadTrace& h : l.heads) gridMax = std::max(gridMax, largest(h));
    scaleMax_ = scale == AttentionScale::Shared ? gridMax : 1;
    for (const LayerTrace& l : t.layers)
      for (const HeadTrace& h : l.heads) {
        const float own = largest(h) > 0 ? largest(h) : 1;
        const float hi = scale == AttentionScale::PerMap ? own : static_cast<float>(scaleMax_);
        // Row: each row of the thumbnail (of a long input: of its pooled map) to its own maximum.
        const Mat& m = drawn(h);
        const double floor = scale == AttentionScale::Log ? logFloor(t.tokenCount()) : 0;
        thumbs_.push_back(attentionImage(scale == AttentionScale::Row ? rowNormalised(m) : m,
                                         ViewStyle::instance().sequential(), hi, floor));
      }
  }
  update();
}

void ModelGridView::showCross() {
  // The decoder's cross-attention, every layer × head: thumbnails of n_tgt rows × n_src columns (a translation is
  // short: every map is kept, EncDecTrace). The same scales as the self-attention grid.
  const auto& cross = *cross_;
  layers_ = static_cast<int>(cross.size());
  heads_ = static_cast<int>(cross[0].heads.size());
  const AttentionScale scale = ViewStyle::instance().attentionScale();
  float gridMax = 0;
  for (const CrossLayerTrace& l : cross)
    for (const HeadTrace& h : l.heads) gridMax = std::max(gridMax, h.attention.size() ? h.attention.maxCoeff() : 0.f);
  scaleMax_ = scale == AttentionScale::Shared ? gridMax : 1;
  for (const CrossLayerTrace& l : cross)
    for (const HeadTrace& h : l.heads) {
      const float own = h.attention.size() && h.attention.maxCoeff() > 0 ? h.attention.maxCoeff() : 1;
      const float hi = scale == AttentionScale::PerMap ? own : static_cast<float>(scaleMax_);
      const double floor = scale == AttentionScale::Log ? logFloor(static_cast<int>(h.attention.cols())) : 0;
      thumbs_.push_back(attentionImage(scale == AttentionScale::Row ? rowNormalised(h.attention) : h.attention,
                                       ViewStyle::instance().sequential(), hi, floor));
    }
}

QString ModelGridView::title() const {
  if (!cross_) return {};
  return tr("Cross-attention · %1 target rows × %2 source columns").arg(crossTargets_.size()).arg(crossSources_.size());
}

ViewNumbers ModelGridView::numbers(const ComputeResult& result) const {
  if (const auto* cross = crossLayersOf(result)) {  // target rows × source columns, named as the cross view names them
    ViewNumbers n = numbersFrame(result, tr("Cross-attention of every decoder layer and head"));
    const QStringList targets = crossTargets(result), sources = crossSources(result);
    for (std::size_t l = 0; l < cross->size(); ++l)
      for (std::size_t h = 0; h < (*cross)[l].heads.size(); ++h)
        n.matrices.push_back(labelled("cross_attention_L" + std::to_string(l) + "_H" + std::to_string(h),
                                      tr("Cross-attention · decoder layer %1 · head %2").arg(l).arg(h),
                                      (*cross)[l].heads[h].attention.cast<double>(), targets, sources));
    return n;
  }
  ViewNumbers n = numbersFrame(result, tr("Attention of every layer and head"));
  if (!result.ok()) return n;
  const Trace& t = result.trace();
  for (int l = 0; l < t.layerCount(); ++l)
    for (int h = 0; h < t.headCount(); ++h) addAttentionNumbers(n, result, l, h);
  return n;
}

void ModelGridView::setFontScale(double scale) {
  fontScale_ = scale;
  update();
}

double ModelGridView::labelPointSize() const {
  // 8 pt in a small window, up to 12 pt in a 1200 × 900 figure.
  return std::clamp(8.0 + (std::min(width(), height()) - 300) / 150.0, 8.0, 12.0) * fontScale_;
}

int ModelGridView::barReserve() const {
  const double s = labelPointSize() / 8;
  return static_cast<int>((8 + 12 + 4 + 52) * s);  // gap, bar, tick, "0.125"
}

QRect ModelGridView::cellRect(int layer, int head) const {
  const double s = labelPointSize() / 8;
  // A grouped-query model: a second row of labels names the kv head each group of heads reads.
  const int labelW = static_cast<int>(34 * s),
            labelH = static_cast<int>((groupedQuery() ? 36 : 20) * s) + titleHeight();
  const int w = width() - labelW - kMargin - barReserve(), h = height() - labelH - kMargin;
  const int cols = std::max(1, heads_), rows = std::max(1, layers_);
  // Square cells when the figure has the grid's shape; in a figure of another shape (2 layers × 4 heads in
  // 1200 × 900 left 40 % of it empty) cells stretch up to kMaxCellStretch : 1, and the grid is centred in the rest.
  const double fitW = double(w) / cols, fitH = double(h) / rows;
  const int cw = std::max(4, static_cast<int>(std::min(fitW, fitH * kMaxCellStretch)));
  const int ch = std::max(4, static_cast<int>(std::min(fitH, fitW * kMaxCellStretch)));
  const int x0 = labelW + std::max(0, (w - cw * cols) / 2), y0 = labelH + std::max(0, (h - ch * rows) / 2);
  return QRect(x0 + head * cw + 2, y0 + layer * ch + 2, cw - 4, ch - 4);
}

bool ModelGridView::headAt(const QPoint& pos, int* layer, int* head) const {
  for (int l = 0; l < layers_; ++l)
    for (int h = 0; h < heads_; ++h)
      if (cellRect(l, h).contains(pos)) {
        *layer = l;
        *head = h;
        return true;
      }
  return false;
}

void ModelGridView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), ViewStyle::instance().background());
  if (layers_ == 0) {
    p.drawText(rect(), Qt::AlignCenter, result_ && !result_->error.isEmpty() ? result_->error : tr("No model run yet"));
    return;
  }
  QFont f = font();
  f.setPointSizeF(labelPointSize());
  p.setFont(f);
  p.setPen(ViewStyle::instance().foreground());
  // Every k-th head and layer labelled when the cells are narrower (lower) than their labels: "H0H1H2H3" ran together
  // under thumbnails of 15 pixels beside the heatmap on a projector. Hovering a cell names its head.
  const QFontMetrics fm(f);
  const int cellW = std::max(1, cellRect(0, 1 % std::max(1, heads_)).left() - cellRect(0, 0).left());
  // One layer: the cell's own height (a pitch of 0 clipped "L0" to a 1-pixel strip, drawn as "···").
  const int cellH =
      layers_ > 1 ? std::max(1, cellRect(1, 0).top() - cellRect(0, 0).top()) : std::max(1, cellRect(0, 0).height());
  const int headStep =
      heads_ > 1 ? std::max(1, (fm.horizontalAdvance(tr("H%1").arg(heads_ - 1)) + 4 + cellW - 1) / cellW) : 1;
  const int layerStep = layers_ > 1 ? std::max(1, (fm.height() + cellH - 1) / cellH) : 1;
  if (cross_) {  // the stack the grid shows and what its rows and columns are, over the head labels
    p.drawText(QRect(kMargin, 0, width() - 2 * kMargin, titleHeight()), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(title(), Qt::ElideRight, width() - 2 * kMargin));
  }
  for (int h = 0; h < heads_; h += headStep) {
    const QRect r = cellRect(0, h);
    p.drawText(
        QRect(r.center().x() - cellW * headStep / 2, titleHeight(), cellW * headStep, r.top() - 2 - titleHeight()),
        Qt::AlignHCenter | Qt::AlignBottom, tr("H%1").arg(h));
  }
  if (groupedQuery()) {  // "kv g" over each group of heads reading kv head g, a bracket under it
    const Trace& t = result_->trace();
    const int group = heads_ / t.kvHeadCount();
    for (int g = 0; g < t.kvHeadCount(); ++g) {
      const QRect a = cellRect(0, g * group), b = cellRect(0, g * group + group - 1);
      const int y = a.top() - fm.height() - 6;
      p.drawLine(a.left(), y, b.right(), y);
      p.drawText(QRect(a.left(), 0, b.right() - a.left(), y - 1), Qt::AlignHCenter | Qt::AlignBottom,
                 tr("kv %1").arg(g));
    }
  }
  const int selL = result_->layer(), selH = result_->head();
  for (int l = 0; l < layers_; ++l) {
    const QRect first = cellRect(l, 0);
    if (l % layerStep == 0)
      p.drawText(QRect(0, first.center().y() - cellH * layerStep / 2, first.left() - 4, cellH * layerStep),
                 Qt::AlignRight | Qt::AlignVCenter, tr("L%1").arg(l));
    for (int h = 0; h < heads_; ++h) {
      const QRect r = cellRect(l, h);
      const QImage& thumb = thumbs_[l * heads_ + h];
      paintCells(&p, r, thumb);  // crisp cells; rectangles in SVG/PDF
      if (!cross_) {             // windows and pins are the decoder's self-attention's, not cross-attention's
        paintWindow(p, r, result_->trace().layers[l].heads[h].options.window);
        paintPins(p, r, thumb.height(), thumb.width());
      }
      if (isAblated(result_->params.prediction, {l, h}, ablationStack(*result_))) paintAblated(p, r);
      if (l == selL && h == selH) {
        p.setPen(QPen(QColor(0xE6, 0x55, 0x0D), std::max(2.0, 3 * fontScale_)));
        p.drawRect(r.adjusted(-1, -1, 1, 1));
        p.setPen(ViewStyle::instance().foreground());
      }
    }
  }
  paintColorBar(p);
}

void ModelGridView::paintWindow(QPainter& p, const QRect& r, int window) const {
  const int n = result_->trace().tokenCount();
  const QPolygonF cells = outsideWindow(n, window, 0, n);
  if (cells.isEmpty()) return;
  p.save();  // the n × n token cells of the window's staircase over the thumbnail (a long input's is pooled)
  p.setClipRect(r);
  p.translate(r.topLeft());
  p.scale(double(r.width()) / n, double(r.height()) / n);
  p.setPen(Qt::NoPen);
  p.setBrush(windowShadeColour());
  p.drawPolygon(cells);
  p.restore();
}

void ModelGridView::paintPins(QPainter& p, const QRect& r, int rows, int cols) const {
  const std::vector<int> pins = pinsWithin(result_->params.selection.pinned, std::min(rows, cols));
  if (pins.empty()) return;
  // The pinned tokens' rows and columns, outlined in the orange of the big heatmap's pins.
  const double ch = double(r.height()) / rows, cw = double(r.width()) / cols;
  p.save();
  p.setPen(QPen(QColor(0xFF, 0x5A, 0x1F), std::max(1.0, 1.5 * fontScale_)));
  p.setBrush(Qt::NoBrush);
  for (int t : pins) {
    p.drawRect(QRectF(r.left(), r.top() + t * ch, r.width(), ch));
    p.drawRect(QRectF(r.left() + t * cw, r.top(), cw, r.height()));
  }
  p.restore();
}

void ModelGridView::paintAblated(QPainter& p, const QRect& r) const {
  // A switched-off head: veiled and crossed, its pattern still visible (the head still attends; only its
  // output is replaced).
  p.save();
  p.fillRect(r, QColor(128, 128, 128, 140));
  p.setPen(QPen(QColor(0xD0, 0x20, 0x20), std::max(2.0, 2.5 * fontScale_)));
  p.drawLine(r.topLeft(), r.bottomRight());
  p.drawLine(r.topRight(), r.bottomLeft());
  p.restore();
}

void ModelGridView::paintColorBar(QPainter& p) const {
  const QRect first = cellRect(0, heads_ - 1), last = cellRect(layers_ - 1, heads_ - 1);
  const double s = labelPointSize() / 8;
  const QRect bar(first.right() + static_cast<int>(10 * s), first.top(), static_cast<int>(12 * s),
                  last.bottom() - first.top());
  if (bar.height() < 8) return;
  paintCells(&p, bar, barImage(ViewStyle::instance().sequential()));
  p.setPen(QPen(ViewStyle::instance().foreground(), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(bar);
  const AttentionScale scale = ViewStyle::instance().attentionScale();
  const bool perMap = scale == AttentionScale::PerMap, perRow = scale == AttentionScale::Row;
  const QFontMetrics fm = p.fontMetrics();
  const auto tick = [&](double t, const QString& text) {
    const int y = bar.bottom() - static_cast<int>(std::lround(t * bar.height()));
    p.drawLine(bar.right(), y, bar.right() + 3, y);
    p.drawText(QRect(bar.right() + 6, y - fm.height(), 200, 2 * fm.height()), Qt::AlignLeft | Qt::AlignVCenter, text);
  };
  if (scale == AttentionScale::Log) {  // the floor, 1 and a decade between (more would crowd a short bar)
    const int keys = cross_ ? static_cast<int>(crossSources_.size()) : result_->trace().tokenCount();
    const int lf = static_cast<int>(std::lround(std::log10(logFloor(keys))));
    tick(0, decadeLabel(lf));
    tick(static_cast<double>(lf / 2 - lf) / -lf, decadeLabel(lf / 2));
    tick(1, decadeLabel(0));
    return;
  }
  for (const double t : {0.0, 0.5, 1.0})
    tick(t, perMap || perRow ? (t == 0   ? QString("0")
                                : t == 1 ? (perRow ? tr("row max") : tr("max"))
                                         : (perRow ? tr("½ row max") : tr("½ max")))
                             : QString::number(t * scaleMax_, 'g', 3));
}

bool ModelGridView::groupedQuery() const {
  return !cross_ && result_ && result_->ok() && result_->trace().kvHeadCount() != result_->trace().headCount();
}

bool ModelGridView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {  // the thumbnail under the mouse named, with its kv head in a GQA model
    auto* help = static_cast<QHelpEvent*>(e);
    int l, h;
    if (headAt(help->pos(), &l, &h) && cross_) {
      QToolTip::showText(help->globalPos(), crossCellText(help->pos(), l, h), this);
      return true;
    }
    if (headAt(help->pos(), &l, &h)) {
      QToolTip::showText(help->globalPos(),
                         (headLabel(l, h) + "%1%2")
                                 .arg(kvSuffix(result_->trace(), h),
                                      windowTitleNote(result_->trace().layers[l].heads[h].options.window)) +
                             "\n" + toolTip(),
                         this);
      return true;
    }
  }
  return TraceView::event(e);
}

QString ModelGridView::crossCellText(const QPoint& pos, int l, int h) const {
  // The thumbnail's cell under the mouse: row = target token, column = source token.
  const QRect r = cellRect(l, h);
  const Mat& a = (*cross_)[static_cast<std::size_t>(l)].heads[static_cast<std::size_t>(h)].attention;
  const int row = std::clamp(static_cast<int>((pos.y() - r.top()) * a.rows() / std::max(1, r.height())), 0,
                             static_cast<int>(a.rows()) - 1);
  const int col = std::clamp(static_cast<int>((pos.x() - r.left()) * a.cols() / std::max(1, r.width())), 0,
                             static_cast<int>(a.cols()) - 1);
  return tr("Cross · decoder layer %1 · head %2\ntarget “%3” [%4] → source “%5” [%6]: weight %7")
      .arg(l)
      .arg(h)
      .arg(crossTargets_.value(row))
      .arg(row)
      .arg(crossSources_.value(col))
      .arg(col)
      .arg(a(row, col), 0, 'f', 4);
}

int ModelGridView::titleHeight() const {
  return cross_ ? static_cast<int>(QFontMetrics(labelFont()).height() * 1.4) : 0;
}

QFont ModelGridView::labelFont() const {
  QFont f = font();
  f.setPointSizeF(labelPointSize());
  return f;
}

void ModelGridView::mousePressEvent(QMouseEvent* event) {
  int l, h;
  if (!headAt(event->pos(), &l, &h)) return;
  if (!(event->modifiers() & Qt::ControlModifier)) {
    emit selectionRequested(l, h);
    return;
  }
  Params p = result_->params;
  toggleAblation(p.prediction, {l, h}, ablationStack(*result_));  // an encoder–decoder: the stack shown
  emit paramsRequested(p);
}

}  // namespace attnlab::ui
