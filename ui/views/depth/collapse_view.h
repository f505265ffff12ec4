#pragma once
// The rank-collapse explorer (seeds/002): relative residual ‖res(X_l)‖/‖X_l‖ against depth on a log
// scale, one median curve with a min–max band per configuration (the paper's Figure 2), a one-line
// reading for the class, and an inspector at the selected depth: the tokens' cosine similarities,
// the singular values of X_l and the attention of that layer. Both computations run on
// BackgroundJobs; all settings live in Params (edits go out as paramsRequested).
#include <QLabel>
#include <memory>
#include <vector>

#include "core/run/collapse_experiment.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

class QComboBox;
class QGridLayout;
class QSlider;
class QCustomPlot;

namespace attnlab::ui {

class CollapseControls;
class MatrixPlot;

class CollapseView : public TraceView {
  Q_OBJECT
 public:
  explicit CollapseView(QWidget* parent = nullptr);
  QString viewName() const override { return "collapse"; }
  QString displayName() const override { return tr("Rank collapse"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  void waitForAnalyses() override;

  QCustomPlot* curvesPlot() const { return curves_; }
  QString readingText() const { return reading_->text(); }
  const std::shared_ptr<const CollapseResult>& collapseResult() const { return collapse_; }
  const std::shared_ptr<const LayerInspection>& inspection() const { return inspection_; }
  CollapseControls* controls() const { return controls_; }

 protected:
  /// Below 480 × 400 (a paper column's figure) the inspector under the curves is left out: the curves keep the room.
  void resizeEvent(QResizeEvent* event) override;

 private:
  QWidget* inspector_ = nullptr;
  void requestSettings(const CollapseSettings& s);
  void drawCurves();
  void drawInspection();
  void showAttention(const std::vector<MatD>& heads, const QStringList& tokens, int layer);

  CollapseControls* controls_;
  QLabel* reading_;
  QLabel* status_;
  QCustomPlot* curves_;
  QComboBox* inspectConfig_;
  QSlider* inspectDepth_;
  QLabel* inspectLabel_;
  MatrixPlot* cosine_;
  QCustomPlot* singular_;
  QGridLayout* attentionGrid_;
  std::vector<MatrixPlot*> attention_;
  BackgroundJob curvesJob_, inspectJob_;
  void dropResult() override {
    result_.reset();
    collapse_.reset();
    inspection_.reset();
  }
  ResultPtr result_;
  std::string curvesKey_, inspectKey_;
  std::shared_ptr<const CollapseResult> collapse_;
  std::shared_ptr<const LayerInspection> inspection_;
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
