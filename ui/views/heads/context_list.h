#pragma once
// A head's strongest contexts as rows of text (issue 17): each row is a snippet's tokens with the head's attention
// from the query drawn over them (background intensity per token, on the row's own maximum), the query underlined
// and bold, the key (attention-edge contexts) framed; under it the score and the source. Painted, so figures keep
// it; a click reports the row.
#include <QWidget>
#include <vector>

#include "core/atlas/head_atlas.h"

namespace attnlab::ui {

class ContextList : public QWidget {
  Q_OBJECT
 public:
  explicit ContextList(QWidget* parent = nullptr);
  void setContexts(const QString& title, std::vector<StrongContext> contexts);
  const std::vector<StrongContext>& contexts() const { return contexts_; }
  /// The row at `pos` (widget coordinates), or −1; and a row's rectangle.
  int rowAt(const QPointF& pos) const;
  QRect rowRect(int row) const;
  void setFontScale(double scale);
  QSize sizeHint() const override;

 signals:
  void rowClicked(int row);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  int headerHeight() const;
  int rowHeight() const;
  void paintRow(QPainter& p, int row, const QRect& r) const;

  QString title_;
  std::vector<StrongContext> contexts_;
  double fontScale_ = 1.0;
  int hovered_ = -1;
};

}  // namespace attnlab::ui
