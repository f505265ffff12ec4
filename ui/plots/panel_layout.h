#pragma once
// Panels (plots) side by side when the view is wide enough, in a grid or a column when it is not: a view of three
// plots shows them in a row on a desk screen and stacked on a 1280 × 720 projector with the lesson open, instead of
// squashing each to 40 px or scrolling sideways. On screen a panel is never narrower than `minimumWidth` nor lower than
// `minimumHeight` (both grow by 1.4 in presentation mode, with its fonts): heightForWidth() gives the stacked height,
// so the page scrolls vertically when it must. A figure of a fixed size has no page to scroll: there the panels take
// more columns (down to one row) and shrink to fit, never overflowing the rect.
#include <QLayout>
#include <QList>

namespace attnlab::ui {

class PanelLayout : public QLayout {
 public:
  explicit PanelLayout(int minimumWidth = 360, int minimumHeight = 260, QWidget* parent = nullptr);
  ~PanelLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override { return static_cast<int>(items_.size()); }
  QLayoutItem* itemAt(int index) const override { return items_.value(index); }
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override { return Qt::Horizontal | Qt::Vertical; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;
  /// How many panels share a row at `width` when the height allows (setGeometry adds columns in a rect too low).
  int columnsFor(int width) const;

 private:
  int visibleCount() const;
  QSize panelMinimum() const;

  QList<QLayoutItem*> items_;
  int minWidth_, minHeight_;
};

}  // namespace attnlab::ui
