#pragma once
// The head view (after BertViz), painted natively: the tokens in two columns, queries on the left and
// keys on the right, a line from each query to each key it attends to with the weight as opacity, one
// colour per head, all heads of the selected layer at once: overlaid, or side by side in one narrow
// column per head (small multiples, as in BertViz's model view) where overlaid lines would blend.
// Every head shares one opacity scale (opacity = weight). Hover a token to see only its lines,
// click to pin it (Esc or a second click unpins), click a head's swatch to hide or show it. Long
// inputs scroll; lines fainter than the threshold are skipped, so 512 tokens paint without lag. An encoder–decoder's
// cross stack: the selected head's lines from the target tokens (left) to the source tokens (right), drawn by the
// Cross-attention view's AlignmentCanvas.
#include <QLineF>
#include <QWidget>
#include <array>
#include <vector>

#include "ui/views/attention/head_view_canvas.h"
#include "ui/views/common/trace_view.h"

class QComboBox;
class QPainter;
class QScrollArea;
class QSlider;
class QLabel;

namespace attnlab::ui {

class HeadViewCanvas;
class HeadViewLegend;
class AlignmentCanvas;

class HeadView : public TraceView {
  Q_OBJECT
 public:
  explicit HeadView(QWidget* parent = nullptr);
  QString viewName() const override { return "headview"; }
  QString displayName() const override { return tr("Head view"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  /// Every head's attention of the selected layer, stacked [heads, n, n] in NPY.
  ViewNumbers numbers(const ComputeResult& result) const override;
  bool drawsCross() const override { return true; }

  HeadViewCanvas* canvas() const { return canvas_; }
  /// Heads drawn (true) or hidden by their swatch.
  void setHeadVisible(int head, bool visible);
  /// Lines with a weight below this are not drawn (0 … 1).
  void setThreshold(double t);
  /// Overlay (all heads in one pair of columns) or one column pair per shown head.
  void setColumns(bool perHead);
  QString title() const;
  HeadViewLegend* legend() const { return legend_; }
  /// What the cross stack draws (selection.stack "cross"): the selected head's target × source lines.
  AlignmentCanvas* alignment() const { return alignment_; }

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  void onHoverChanged(int token) override;
  void onSelectionCleared() override;

 private:
  void rebuildSwatches();
  /// Title and key after a result, a head shown or hidden, or a new threshold.
  void updateTitle();

  void dropResult() override {
    result_.reset();
    canvas_->clearData();
  }
  ResultPtr result_;
  QScrollArea* scroll_;
  HeadViewCanvas* canvas_;
  QWidget* swatches_;
  QSlider* threshold_;
  QComboBox* arrangement_;
  HeadViewLegend* legend_;
  QWidget* controls_;
  AlignmentCanvas* alignment_;
  QLabel *title_, *thresholdLabel_;
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
