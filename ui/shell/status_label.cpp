#include "ui/shell/status_label.h"

#include <QPainter>
#include <QStyle>
#include <QStyleOption>

namespace attnlab::ui {

StatusLabel::StatusLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void StatusLabel::setText(const QString& text) {
  QLabel::setText(text);
  updateToolTip();
}

QString StatusLabel::shownText() const {
  return fontMetrics().elidedText(text(), Qt::ElideRight, contentsRect().width());
}

QSize StatusLabel::minimumSizeHint() const {
  return {fontMetrics().horizontalAdvance(QStringLiteral("⚠ …")) * 4, QLabel::minimumSizeHint().height()};
}

void StatusLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  QStyleOption opt;
  opt.initFrom(this);
  style()->drawItemText(&p, contentsRect(), Qt::AlignLeft | Qt::AlignVCenter, opt.palette, isEnabled(), shownText(),
                        foregroundRole());
}

void StatusLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  updateToolTip();
}

void StatusLabel::updateToolTip() {
  const QString tip = isElided() ? text() : QString();
  if (toolTip() != tip) setToolTip(tip);
}

}  // namespace attnlab::ui
