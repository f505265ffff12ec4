#include "ui/model_grid_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "ui/view_style.h"

namespace attnlab::ui {
namespace {

constexpr int kMargin = 6;

QImage attentionImage(const Mat& a, ColorMap map) {
  QImage img(static_cast<int>(a.cols()), static_cast<int>(a.rows()), QImage::Format_RGB32);
  // Attention weights are in [0, 1]: a fixed scale makes heads comparable at a glance.
  const std::vector<QRgb>& table = colorTable(map);
  for (int i = 0; i < a.rows(); ++i) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(i));
    for (int j = 0; j < a.cols(); ++j) {
      const float w = a(i, j);
      line[j] = table[w > 0 ? std::min(1023, static_cast<int>(w * 1023.0f + 0.5f)) : 0];
    }
  }
  return img;
}

}  // namespace

ModelGridView::ModelGridView(QWidget* parent) : TraceView(parent) {
  setMinimumSize(160, 120);
  setToolTip(tr("Every layer (rows) and head (columns). Click a head to select it."));
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, [this] { showResult(result_); });
}

void ModelGridView::showResult(const ResultPtr& result) {
  result_ = result;
  thumbs_.clear();
  layers_ = heads_ = 0;
  if (result && result->ok()) {
    const Trace& t = result->trace();
    layers_ = t.layerCount();
    heads_ = t.headCount();
    for (const LayerTrace& l : t.layers)
      for (const HeadTrace& h : l.heads)
        thumbs_.push_back(attentionImage(h.attention, ViewStyle::instance().sequential()));
  }
  update();
}

ViewNumbers ModelGridView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, tr("Attention of every layer and head"));
  if (!result.ok()) return n;
  const QStringList tokens = result.tokenLabels();
  const Trace& t = result.trace();
  for (int l = 0; l < t.layerCount(); ++l)
    for (int h = 0; h < t.headCount(); ++h)
      n.matrices.push_back(labelled("attention_L" + std::to_string(l) + "_H" + std::to_string(h),
                                    tr("Attention · layer %1 · head %2").arg(l).arg(h),
                                    t.layers[l].heads[h].attention.cast<double>(), tokens, tokens));
  return n;
}

void ModelGridView::setFontScale(double scale) {
  fontScale_ = scale;
  update();
}

QRect ModelGridView::cellRect(int layer, int head) const {
  const int labelW = static_cast<int>(34 * fontScale_), labelH = static_cast<int>(20 * fontScale_);
  const int w = width() - labelW - kMargin, h = height() - labelH - kMargin;
  const int side = std::max(4, std::min(w / std::max(1, heads_), h / std::max(1, layers_)));
  return QRect(labelW + head * side + 2, labelH + layer * side + 2, side - 4, side - 4);
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
  f.setPointSizeF(8 * fontScale_);
  p.setFont(f);
  p.setPen(ViewStyle::instance().foreground());
  for (int h = 0; h < heads_; ++h) {
    const QRect r = cellRect(0, h);
    p.drawText(QRect(r.left(), 0, r.width(), r.top() - 2), Qt::AlignHCenter | Qt::AlignBottom, tr("H%1").arg(h));
  }
  const int selL = result_->layer(), selH = result_->head();
  for (int l = 0; l < layers_; ++l) {
    const QRect first = cellRect(l, 0);
    p.drawText(QRect(0, first.top(), first.left() - 4, first.height()), Qt::AlignRight | Qt::AlignVCenter,
               tr("L%1").arg(l));
    for (int h = 0; h < heads_; ++h) {
      const QRect r = cellRect(l, h);
      p.setRenderHint(QPainter::SmoothPixmapTransform, false);  // nearest neighbour: cells stay cells
      p.drawImage(r, thumbs_[l * heads_ + h]);
      if (l == selL && h == selH) {
        p.setPen(QPen(QColor(0xE6, 0x55, 0x0D), std::max(2.0, 3 * fontScale_)));
        p.drawRect(r.adjusted(-1, -1, 1, 1));
        p.setPen(ViewStyle::instance().foreground());
      }
    }
  }
}

void ModelGridView::mousePressEvent(QMouseEvent* event) {
  int l, h;
  if (headAt(event->pos(), &l, &h)) emit selectionRequested(l, h);
}

}  // namespace attnlab::ui
