#pragma once
// The path view of seeds/002: with skip connections the network is a sum of paths through heads.
// Top: how many paths of each length ℓ an L-layer, H-head network has, C(L, ℓ)·H^ℓ (log scale).
// Bottom: for random paths of each length, the distance of the product of their attention matrices
// from the best rank-1 matrix (median and min–max over seeds × samples): short paths keep rank, long
// ones lose it. Uses the collapse settings (depth, heads, …) of Params; runs on a BackgroundJob.
#include <QLabel>
#include <memory>

#include "core/run/path_analysis.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

class QCustomPlot;
class QSpinBox;

namespace attnlab::ui {

class PathsView : public TraceView {
  Q_OBJECT
 public:
  explicit PathsView(QWidget* parent = nullptr);
  QString viewName() const override { return "paths"; }
  QString displayName() const override { return tr("Paths"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  void waitForAnalyses() override;

  const std::shared_ptr<const PathAnalysis>& analysis() const { return analysis_; }

 private:
  void draw();

  QSpinBox* samples_;
  QLabel* info_;
  QLabel* status_;
  QCustomPlot* counts_;
  QCustomPlot* residuals_;
  BackgroundJob job_;
  void dropResult() override {
    result_.reset();
    analysis_.reset();
  }
  ResultPtr result_;
  std::string key_;
  std::shared_ptr<const PathAnalysis> analysis_;
};

}  // namespace attnlab::ui
