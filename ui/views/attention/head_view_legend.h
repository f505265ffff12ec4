#pragma once
// The head view's key, part of its figure: a colour swatch per shown head and the one opacity scale
// every head's lines share (opacity = attention weight, 0 … 1), with the faint-line threshold. The
// head buttons above it are controls and stay off exported figures; this is what explains the plot.
#include <QWidget>
#include <vector>

namespace attnlab::ui {

class HeadViewLegend : public QWidget {
  Q_OBJECT
 public:
  explicit HeadViewLegend(QWidget* parent = nullptr);
  /// visible[h]: head h is drawn. Colours are HeadViewCanvas::headColor(h).
  void setHeads(const std::vector<bool>& visible);
  void setThreshold(double t);
  void setFontScale(double scale);
  /// Heads named in the key (the shown ones).
  std::vector<int> shownHeads() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {100, sizeHint().height()}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  /// Draws the opacity ramp with ticks 0, 0.5, 1 at `x`; returns its right end.
  int paintRamp(class QPainter& p, int x, int y, int h);

  std::vector<bool> visible_;
  double threshold_ = 0.02;
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
