#pragma once
// A row of controls that wraps onto further lines when the view is narrower than the row, as words wrap in a
// paragraph: a view's toolbar (variant check boxes, sliders, spin boxes) then never forces the window wider than the
// screen nor a horizontal scroll bar on a 1280 × 720 projector with the lesson open. Items keep their size hints;
// heightForWidth() tells the parent how tall the wrapped rows are.
#include <QLayout>
#include <QList>

namespace attnlab::ui {

class FlowLayout : public QLayout {
 public:
  explicit FlowLayout(QWidget* parent = nullptr, int hSpacing = 8, int vSpacing = 4);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  /// Adds "text [field] [extra]" as one item, so that a caption never wraps away from its field.
  void addLabelled(const QString& text, QWidget* field, QWidget* extra = nullptr);
  int count() const override { return static_cast<int>(items_.size()); }
  QLayoutItem* itemAt(int index) const override { return items_.value(index); }
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
  /// The widest item: the narrowest the row can become.
  QSize minimumSize() const override;
  /// Everything on one line.
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

 private:
  /// Places the items line by line inside `rect` (or only measures, `apply` false); returns the height used.
  int arrange(const QRect& rect, bool apply) const;

  QList<QLayoutItem*> items_;
  int hSpacing_, vSpacing_;
};

}  // namespace attnlab::ui
