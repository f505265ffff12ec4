#pragma once
// Feature maps of linear attention against softmax's exp (seeds/000): φ = 1 + elu, e^x and relu on
// [−4, 4] with the tangent 1 + x of e^x at 0; for the selected head, exact e^{q·k/√d} against
// φ(q)·φ(k) for every pair (one colour per map, Performer's positive features included, Pearson
// correlation in the legend); and the resulting attention matrices side by side. The comparison runs
// on a BackgroundJob; Performer's m, seed and orthogonality are parameters (Params::spectra.features).
#include <QCheckBox>
#include <QLabel>
#include <QSpinBox>
#include <vector>

#include "core/variants/feature_maps.h"
#include "ui/plots/matrix_plot.h"
#include "ui/plots/spectrum_plot.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

class FeatureMapView : public TraceView {
  Q_OBJECT
 public:
  /// Pairs drawn per map in the scatter (a deterministic stride over all n² pairs).
  static constexpr int kMaxScatterPoints = 2000;

  explicit FeatureMapView(QWidget* parent = nullptr);
  QString viewName() const override { return "feature-maps"; }
  QString displayName() const override { return tr("Feature maps"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;

  /// The last comparison shown (n = 0 before the first).
  const FeatureMapComparison& comparison() const { return comparison_; }
  QSpinBox* featuresBox() const { return features_; }

 private:
  void drawCurves();
  void showComparison(const FeatureMapComparison& c);
  void emitEdit();

  TitledPlot* curves_;
  TitledPlot* scatter_;
  std::vector<MatrixPlot*> heatmaps_;  ///< softmax, then featureMaps() order
  QLabel* info_;
  QSpinBox* features_;
  QSpinBox* seed_;
  QCheckBox* orthogonal_;
  BackgroundJob* job_;
  void dropResult() override { result_.reset(); }
  ResultPtr result_;
  FeatureMapComparison comparison_;
};

}  // namespace attnlab::ui
