#pragma once
// The status bar's line: one line, cut with "…" where the window is narrower than the text (a long error at
// 1280 px), the whole text in the tooltip. text() stays the whole text (tests and screen readers read it), and the
// label asks for no more width than a few characters, so a long message never widens the window.
#include <QLabel>

namespace attnlab::ui {

class StatusLabel : public QLabel {
  Q_OBJECT
 public:
  explicit StatusLabel(QWidget* parent = nullptr);
  /// Hides QLabel::setText (the window holds a StatusLabel*): the tooltip follows the text.
  void setText(const QString& text);
  /// What the label draws at its current width: text(), or text() elided on the right.
  QString shownText() const;
  bool isElided() const { return shownText() != text(); }
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateToolTip();
};

}  // namespace attnlab::ui
