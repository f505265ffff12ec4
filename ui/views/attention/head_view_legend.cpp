#include "ui/views/attention/head_view_legend.h"

#include <QPainter>
#include <cmath>

#include "ui/plots/view_style.h"
#include "ui/views/attention/head_view.h"

namespace attnlab::ui {

HeadViewLegend::HeadViewLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("Every head uses the same scale: a line's opacity is its attention weight."));
}

void HeadViewLegend::setHeads(const std::vector<bool>& visible) {
  visible_ = visible;
  update();
}

void HeadViewLegend::setThreshold(double t) {
  threshold_ = t;
  update();
}

void HeadViewLegend::setFontScale(double scale) {
  fontScale_ = scale;
  QFont f = font();
  f.setPointSizeF(9 * scale);
  setFont(f);
  updateGeometry();
  update();
}

std::vector<int> HeadViewLegend::shownHeads() const {
  std::vector<int> heads;
  for (std::size_t h = 0; h < visible_.size(); ++h)
    if (visible_[h]) heads.push_back(static_cast<int>(h));
  return heads;
}

QSize HeadViewLegend::sizeHint() const {
  const QFontMetrics fm(font());
  return {400, 3 * fm.height() + 8};  // the heads; the caption and the ramp; the ramp's tick labels
}

int HeadViewLegend::paintRamp(QPainter& p, int x, int y, int h) {
  // Drawn the way the canvas draws a line of weight w: the foreground colour at alpha w (in the
  // canvas's 16 opacity steps), over the background.
  const ViewStyle& style = ViewStyle::instance();
  const int w = static_cast<int>(160 * fontScale_);
  for (int i = 0; i < w; ++i) {
    QColor c = style.foreground();
    c.setAlphaF(std::min(1.0, (std::floor(i * 16.0 / w) + 1) / 16.0));
    p.fillRect(QRect(x + i, y, 1, h), c);
  }
  p.setPen(style.foreground());
  p.drawRect(QRect(x, y, w, h).adjusted(0, 0, -1, -1));
  const QFontMetrics fm(font());
  for (double v : {0.0, 0.5, 1.0}) {
    const int tx = x + static_cast<int>(std::lround(v * (w - 1)));
    p.drawLine(tx, y + h, tx, y + h + 3);
    const QString label = QString::number(v, 'g', 2);
    p.drawText(QRect(tx - 30, y + h + 3, 60, fm.height()), Qt::AlignHCenter | Qt::AlignTop, label);
  }
  return x + w;
}

void HeadViewLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const ViewStyle& style = ViewStyle::instance();
  p.fillRect(rect(), style.background());
  const QFontMetrics fm(font());
  const int lineH = fm.height(), pad = fm.horizontalAdvance("  ");
  int x = pad;
  p.setPen(style.foreground());
  for (int h : shownHeads()) {
    QPen pen(HeadViewCanvas::headColor(h), style.lineWidth(2.5));
    p.setPen(pen);
    const int sample = fm.horizontalAdvance("——");
    p.drawLine(x, lineH / 2 + 1, x + sample, lineH / 2 + 1);
    p.setPen(style.foreground());
    const QString name = tr("H%1").arg(h);
    p.drawText(QRect(x + sample + 3, 0, fm.horizontalAdvance(name) + 2, lineH), Qt::AlignVCenter, name);
    x += sample + fm.horizontalAdvance(name) + pad + 3;
  }
  if (shownHeads().empty()) p.drawText(QRect(x, 0, width() - x, lineH), Qt::AlignVCenter, tr("no head shown"));
  const QString caption =
      tr("opacity = weight, one scale for every head (lines < %1 hidden)").arg(threshold_, 0, 'f', 2);
  const int captionW = fm.horizontalAdvance(caption);
  const int y = lineH + 4;
  p.drawText(QRect(pad, y, captionW + pad, lineH), Qt::AlignVCenter, caption);
  paintRamp(p, 2 * pad + captionW, y + lineH / 4, lineH / 2 + 2);
}

}  // namespace attnlab::ui
