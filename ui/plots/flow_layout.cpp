#include "ui/plots/flow_layout.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QWidget>
#include <algorithm>

namespace attnlab::ui {

FlowLayout::FlowLayout(QWidget* parent, int hSpacing, int vSpacing)
    : QLayout(parent), hSpacing_(hSpacing), vSpacing_(vSpacing) {
  setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) { items_.append(item); }

void FlowLayout::addLabelled(const QString& text, QWidget* field, QWidget* extra) {
  auto* box = new QWidget;
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  row->setSpacing(4);
  auto* label = new QLabel(text);
  label->setToolTip(field->toolTip());
  label->setBuddy(field);
  row->addWidget(label);
  row->addWidget(field);
  if (extra) row->addWidget(extra);
  addWidget(box);
}

QLayoutItem* FlowLayout::takeAt(int index) {
  return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

QSize FlowLayout::minimumSize() const {
  QSize size;
  for (const QLayoutItem* item : items_)
    if (!item->isEmpty())
      size = size.expandedTo(item->minimumSize().expandedTo(item->sizeHint().boundedTo({200, 10000})));
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  int width = 0, height = 0, shown = 0;
  for (const QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    width += item->sizeHint().width() + (shown++ ? hSpacing_ : 0);
    height = std::max(height, item->sizeHint().height());
  }
  const QMargins m = contentsMargins();
  return {width + m.left() + m.right(), height + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true);
}

int FlowLayout::arrange(const QRect& rect, bool apply) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  int x = area.x(), y = area.y(), lineHeight = 0;
  // Items of one line share its height and are centred in it, so a check box beside a spin box lines up.
  QList<QPair<QLayoutItem*, QPoint>> line;
  const auto flush = [&] {
    if (apply)
      for (const auto& [item, at] : line) {
        const QSize s = item->sizeHint().boundedTo(QSize(area.width(), lineHeight));
        item->setGeometry(QRect(QPoint(at.x(), at.y() + (lineHeight - s.height()) / 2), s));
      }
    line.clear();
  };
  for (QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    const QSize s = item->sizeHint();
    if (x > area.x() && x + s.width() > area.right() + 1) {  // wrap before an item that would stick out
      flush();
      x = area.x();
      y += lineHeight + vSpacing_;
      lineHeight = 0;
    }
    line.append({item, QPoint(x, y)});
    x += s.width() + hSpacing_;
    lineHeight = std::max(lineHeight, s.height());
  }
  flush();
  const QMargins m = contentsMargins();
  return y + lineHeight - rect.y() + m.bottom();
}

}  // namespace attnlab::ui
