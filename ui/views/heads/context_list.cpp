#include "ui/views/heads/context_list.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "ui/plots/view_style.h"

namespace attnlab::ui {

ContextList::ContextList(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
}

void ContextList::setContexts(const QString& title, std::vector<StrongContext> contexts) {
  title_ = title;
  contexts_ = std::move(contexts);
  hovered_ = -1;
  setMinimumHeight(headerHeight() + rowHeight() * static_cast<int>(contexts_.size()) + 4);
  updateGeometry();
  update();
}

void ContextList::setFontScale(double scale) {
  fontScale_ = scale;
  QFont f = font();
  f.setPointSizeF(10 * scale);
  setFont(f);
  setContexts(title_, contexts_);
}

int ContextList::headerHeight() const { return fontMetrics().height() * 2; }
int ContextList::rowHeight() const { return fontMetrics().height() * 3; }

QSize ContextList::sizeHint() const { return {600, minimumHeight()}; }

QRect ContextList::rowRect(int row) const { return {0, headerHeight() + row * rowHeight(), width(), rowHeight()}; }

int ContextList::rowAt(const QPointF& pos) const {
  const int y = static_cast<int>(pos.y()) - headerHeight();
  if (y < 0) return -1;
  const int row = y / rowHeight();
  return row < static_cast<int>(contexts_.size()) ? row : -1;
}

void ContextList::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const ViewStyle& style = ViewStyle::instance();
  p.fillRect(rect(), style.background());
  p.setPen(style.foreground());
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.drawText(QRect(6, 0, width() - 12, headerHeight()), Qt::AlignVCenter | Qt::AlignLeft, title_);
  p.setFont(font());
  if (contexts_.empty()) {
    p.drawText(QRect(6, headerHeight(), width() - 12, rowHeight()), Qt::AlignLeft | Qt::TextWordWrap,
               tr("No contexts yet: open a corpus (a text file or folder) or drop files here."));
    return;
  }
  for (int i = 0; i < static_cast<int>(contexts_.size()); ++i) paintRow(p, i, rowRect(i));
}

void ContextList::paintRow(QPainter& p, int row, const QRect& r) const {
  const ViewStyle& style = ViewStyle::instance();
  const StrongContext& c = contexts_[static_cast<size_t>(row)];
  if (row == hovered_) p.fillRect(r, style.dark() ? QColor(60, 60, 70) : QColor(235, 240, 250));
  const QFontMetrics fm = fontMetrics();
  const int line = fm.height();
  const float top =
      std::max(1e-6f, c.attention.empty() ? 1.f : *std::max_element(c.attention.begin(), c.attention.end()));
  // Tokens left to right; a snippet wider than the row keeps the query in view by starting later.
  std::vector<int> widths;
  int total = 0;
  for (const std::string& t : c.tokens)
    total += (widths.emplace_back(fm.horizontalAdvance(QString::fromStdString(t)) + 4));
  int x = 6;
  int first = 0;
  while (total > r.width() - 12 && first < c.position - 1) total -= widths[static_cast<size_t>(first++)];
  const QColor hot(230, 80, 20);
  for (int j = first; j < static_cast<int>(c.tokens.size()) && x < r.right(); ++j) {
    const QRect box(x, r.top() + 3, widths[static_cast<size_t>(j)], line + 2);
    const double a = j < static_cast<int>(c.attention.size()) ? c.attention[static_cast<size_t>(j)] / top : 0.0;
    QColor fill = hot;
    fill.setAlphaF(std::clamp(a, 0.0, 1.0) * 0.85);
    p.fillRect(box, fill);
    QFont f = font();
    f.setBold(j == c.position);
    f.setUnderline(j == c.position);
    p.setFont(f);
    p.setPen(style.foreground());
    p.drawText(box, Qt::AlignCenter, QString::fromStdString(c.tokens[static_cast<size_t>(j)]));
    if (j == c.key) {
      p.setPen(QPen(QColor(20, 90, 220), style.lineWidth(1.6)));
      p.drawRect(box.adjusted(0, 0, -1, -1));
    }
    x += widths[static_cast<size_t>(j)];
  }
  p.setFont(font());
  p.setPen(style.dark() ? QColor(170, 170, 170) : QColor(90, 90, 90));
  const QString where = QString("%1 · token %2").arg(QString::fromStdString(c.source)).arg(c.tokenIndex);
  p.drawText(QRect(6, r.top() + line + 6, r.width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
             tr("#%1  score %2  ·  %3").arg(row + 1).arg(c.score, 0, 'f', 3).arg(where));
}

void ContextList::mousePressEvent(QMouseEvent* event) {
  const int row = rowAt(event->position());
  if (row >= 0 && event->button() == Qt::LeftButton) emit rowClicked(row);
}

void ContextList::mouseMoveEvent(QMouseEvent* event) {
  const int row = rowAt(event->position());
  if (row == hovered_) return;
  hovered_ = row;
  setCursor(row >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
  update();
}

void ContextList::leaveEvent(QEvent*) {
  hovered_ = -1;
  update();
}

}  // namespace attnlab::ui
