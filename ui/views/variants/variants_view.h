#pragma once
// The attention-variant comparison (seeds/000): for the selected layer and head, the same Q, K, V
// through every ticked variant. One tile per variant with its matrix (one colour scale shared by all
// tiles), under it |Â − A| against softmax (its own shared scale), a metrics table (rank, entropy,
// top-k share, relative error, output MSE) and Performer's error-vs-m curve (log–log, current m
// marked). Controls above emit paramsRequested. The analyses run in BackgroundJobs.
#include <QLabel>
#include <memory>
#include <vector>

#include "core/variants/variant_analysis.h"
#include "ui/plots/matrix_plot.h"
#include "ui/plots/panel_layout.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

class QTableWidget;

namespace attnlab::ui {

class VariantControls;

class VariantsView : public TraceView {
  Q_OBJECT
 public:
  explicit VariantsView(QWidget* parent = nullptr);
  QString viewName() const override { return "variants"; }
  QString displayName() const override { return tr("Variants"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;

  /// What is drawn now (tests, benchmarks): null before the first comparison.
  std::shared_ptr<const VariantComparison> comparison() const { return comparison_; }
  std::shared_ptr<const PerformerCurve> curve() const { return curve_; }
  VariantControls* controls() const { return controls_; }
  QTableWidget* metricsTable() const { return table_; }
  /// Draws a comparison now, on the calling thread (benchmarks measure the drawing with it).
  void drawComparison(const VariantComparison& c, const QStringList& tokens);

 protected:
  /// Below kFullWidth × kFullHeight (a paper column's figure) the table and the error curve are left out: the maps,
  /// the point of the view, keep the room.
  void resizeEvent(QResizeEvent* event) override;

 private:
  static constexpr int kFullWidth = 480, kFullHeight = 360;
  QWidget* bottom_ = nullptr;
  struct Input {
    MatD q, k, v;
    bool causal = false;
  };
  void drawCurve();
  void fillTable(const VariantComparison& c);
  void ensureTiles(std::size_t count);
  bool curveInputsChanged(const Input& in, const VariantSettings& s) const;

  VariantControls* controls_;
  QWidget* tileArea_;
  PanelLayout* tileGrid_;
  std::vector<MatrixPlot*> tiles_, diffs_;
  QTableWidget* table_;
  QCustomPlot* curvePlot_;
  QLabel* status_;
  BackgroundJob comparisonJob_, curveJob_;
  void dropResult() override {
    result_.reset();
    comparison_.reset();
    curve_.reset();
  }
  ResultPtr result_;
  std::shared_ptr<const VariantComparison> comparison_;
  std::shared_ptr<const PerformerCurve> curve_;
  Input curveInput_;
  VariantSettings curveSettings_;
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
