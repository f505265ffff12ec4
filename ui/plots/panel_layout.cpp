#include "ui/plots/panel_layout.h"

#include <algorithm>

#include "ui/plots/view_style.h"

namespace attnlab::ui {

PanelLayout::PanelLayout(int minimumWidth, int minimumHeight, QWidget* parent)
    : QLayout(parent), minWidth_(minimumWidth), minHeight_(minimumHeight) {
  setContentsMargins(0, 0, 0, 0);
}

PanelLayout::~PanelLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void PanelLayout::addItem(QLayoutItem* item) { items_.append(item); }

QLayoutItem* PanelLayout::takeAt(int index) {
  return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

int PanelLayout::visibleCount() const {
  return static_cast<int>(std::count_if(items_.begin(), items_.end(), [](QLayoutItem* i) { return !i->isEmpty(); }));
}

QSize PanelLayout::panelMinimum() const {
  const double grow = ViewStyle::instance().presentation() ? 1.4 : 1.0;
  return {static_cast<int>(minWidth_ * grow), static_cast<int>(minHeight_ * grow)};
}

int PanelLayout::columnsFor(int width) const {
  const int n = visibleCount();
  if (n == 0) return 1;
  const int fit = (width + spacing()) / std::max(1, panelMinimum().width() + spacing());
  return std::clamp(fit, 1, n);
}

int PanelLayout::heightForWidth(int width) const {
  const int n = visibleCount();
  const int rows = (n + columnsFor(width) - 1) / std::max(1, columnsFor(width));
  const QMargins m = contentsMargins();
  return rows * panelMinimum().height() + std::max(0, rows - 1) * spacing() + m.top() + m.bottom();
}

QSize PanelLayout::minimumSize() const {
  const QMargins m = contentsMargins();
  return panelMinimum() + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize PanelLayout::sizeHint() const {
  const int n = std::max(1, visibleCount());
  const QSize p = panelMinimum();
  return {n * p.width() + (n - 1) * spacing(), p.height()};
}

void PanelLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  const QRect area = rect.marginsRemoved(contentsMargins());
  const int n = visibleCount();
  if (n == 0) return;
  // Columns for the width; when the rect is lower than those rows need (a figure of a fixed size, no page to scroll),
  // more columns, down to one row, and never a panel outside the rect (they overlapped the view's next widget).
  int cols = columnsFor(area.width());
  const auto rowsFor = [n](int c) { return (n + c - 1) / c; };
  const auto heightFor = [&](int c) { return rowsFor(c) * panelMinimum().height() + (rowsFor(c) - 1) * spacing(); };
  while (cols < n && heightFor(cols) > area.height()) ++cols;
  const int rows = rowsFor(cols);
  const int w = (area.width() - (cols - 1) * spacing()) / cols;
  const int h = std::max(1, (area.height() - (rows - 1) * spacing()) / rows);
  int k = 0;
  for (QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    const int r = k / cols, c = k % cols;
    // The last row's panels share its whole width (two of three stacked panels are not left narrow).
    const int inRow = std::min(cols, n - r * cols);
    const int rw = (area.width() - (inRow - 1) * spacing()) / inRow;
    item->setGeometry(
        QRect(area.x() + c * (rw + spacing()), area.y() + r * (h + spacing()), r == rows - 1 ? rw : w, h));
    ++k;
  }
}

}  // namespace attnlab::ui
