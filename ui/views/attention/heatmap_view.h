#pragma once
#include <QLabel>

#include "ui/plots/matrix_plot.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

/// The attention matrix of the selected layer and head: rows are queries, columns keys.
class HeatmapView : public TraceView {
  Q_OBJECT
 public:
  explicit HeatmapView(QWidget* parent = nullptr);
  QString viewName() const override { return "heatmap"; }
  QString displayName() const override { return tr("Attention"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;
  MatrixPlot* plot() const { return plot_; }
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
  void updatePinTable();
  MatrixPlot* plot_;
  QLabel* hover_;
  QLabel* pinTable_;
  ResultPtr result_;
  PinSums sums_;
};

}  // namespace attnlab::ui
