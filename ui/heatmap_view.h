#pragma once
#include <QLabel>

#include "ui/matrix_plot.h"
#include "ui/trace_view.h"

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

 private:
  QString hoverHint() const;
  MatrixPlot* plot_;
  QLabel* hover_;
  ResultPtr result_;
};

}  // namespace attnlab::ui
