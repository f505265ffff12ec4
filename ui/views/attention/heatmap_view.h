#pragma once
#include <QLabel>
#include <memory>

#include "ui/plots/matrix_plot.h"
#include "ui/plots/zoomable_heatmap.h"
#include "ui/views/common/trace_view.h"

class QScrollArea;
class QStackedWidget;

namespace attnlab::ui {

/// The attention matrix of the selected layer and head: rows are queries, columns keys. An encoder–decoder's cross
/// stack (selection.stack "cross"): the selected decoder layer/head's cross-attention, target rows × source columns. Up
/// to kLongInput tokens a MatrixPlot; longer inputs a ZoomableHeatmap (zoom, pan, minimap) drawn from a pyramid of
/// pooled levels, with a Max/Mean pooling choice.
class HeatmapView : public TraceView {
  Q_OBJECT
 public:
  /// Beyond this many tokens the map is drawn zoomable from pooled levels: a MatrixPlot of n² cells
  /// (QCustomPlot's colour map image) costs more than a frame and cannot show them all anyway.
  static constexpr int kLongInput = 256;
  /// The pooled pyramid of the head's map, built from row blocks: the stored map's rows, or for a long input
  /// (which keeps no maps) rows recomputed from the head's Q and K (head_pyramid.h). Built into the pyramid
  /// shown before the last one when nothing else holds it: its buffers are reused, not allocated again.
  std::shared_ptr<const MapPyramid> pyramidOf(const ResultPtr& result, int layer, int head);

  explicit HeatmapView(QWidget* parent = nullptr);
  QString viewName() const override { return "heatmap"; }
  QString displayName() const override { return tr("Attention"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;
  bool drawsCross() const override { return true; }
  MatrixPlot* plot() const { return plot_; }
  ZoomableHeatmap* longPlot() const { return long_; }
  /// True when the last result was long: the zoomable map is shown instead of plot().
  bool showsLong() const { return longShown_; }
  /// The hover read-out strip (screen only: hidden in exported figures).
  QLabel* hoverStrip() const { return hover_; }
  /// The pinned tokens' attention: fromPinned[j] = Σ_{p pinned} A(p, j) (what they attend to),
  /// toPinned[i] = Σ_{p pinned} A(i, p) (who attends to them); means are these over the pin count.
  struct PinSums {
    std::vector<int> pins;  ///< within the sentence
    std::vector<double> fromPinned, toPinned;
  };
  PinSums pinSums() const { return sums_; }
  /// The read-out of the sums under the map (shown with pins, part of the figure).
  QLabel* pinTable() const { return pinTable_; }

 protected:
  void onHoverChanged(int token) override;

 private:
  QString hoverHint() const;
  /// "Attention · layer 1 · head 2 · causal", and the colour scale when it is not 0–1.
  QString title() const;
  /// The selected head's sliding window in keys (0: none).
  int window() const;
  void showCellHover(int row, int col, double value);
  /// The cross stack's head (l, h): target rows × source columns.
  void showCross(int l, int h);
  /// Sums the attention to and from the pinned tokens (sums_), then renders them.
  void updatePinTable();
  /// The sums as a table, one row per token.
  void renderPinTable();
  MatrixPlot* plot_;
  ZoomableHeatmap* long_;
  QWidget* longBox_;  ///< long_ and its pooling choice
  QStackedWidget* stack_;
  bool longShown_ = false;
  QLabel* hover_;
  QLabel* pinTable_;
  QScrollArea* pinScroll_;  ///< holds pinTable_
  void dropResult() override;
  ResultPtr result_;
  bool cross_ = false;  ///< result_ is an encoder–decoder's with the cross stack chosen
  PinSums sums_;
  std::shared_ptr<MapPyramid> shownPyramid_, sparePyramid_;  ///< the one long_ draws, and the one before it
  /// Under the row scale, the largest weight of each row of the pyramid shown ([n]; its rows are divided by it).
  std::shared_ptr<std::vector<float>> shownRowMax_;
};

}  // namespace attnlab::ui
