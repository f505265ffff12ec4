#pragma once
// "exp raises rank", interactive (seeds/000's comments): x ~ N(0, 1)ⁿ, the spectra of x·xᵀ (rank 1)
// and of exp(c·x·xᵀ) with their thresholds, and rank vs c. n, c and the seed are parameters
// (Params::spectra.demo): the controls emit paramsRequested, and the view recomputes when a result
// arrives with different settings.
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSpinBox>

#include "core/spectra/exp_rank_demo.h"
#include "ui/plots/spectrum_plot.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

class RankDemoView : public TraceView {
  Q_OBJECT
 public:
  explicit RankDemoView(QWidget* parent = nullptr);
  QString viewName() const override { return "rank-demo"; }
  QString displayName() const override { return tr("exp raises rank"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;

  QSpinBox* nBox() const { return n_; }
  QDoubleSpinBox* scaleBox() const { return scale_; }
  QSpinBox* seedBox() const { return seed_; }
  /// Ranks shown (−1 before the first result).
  int rankOuter() const { return rankOuter_; }
  int rankExp() const { return rankExp_; }
  int sweepPointsShown() const { return sweepShown_; }

 private:
  void emitEdit();
  void showDemo(const RankDemoResult& r);
  void showSweep(const std::vector<RankSweepPoint>& sweep);

  QSpinBox* n_;
  QDoubleSpinBox* scale_;
  QSpinBox* seed_;
  QLabel* headline_;
  SingularValuePlot* spectra_;
  TitledPlot* sweep_;
  BackgroundJob* demoJob_;
  BackgroundJob* sweepJob_;
  void dropResult() override { result_.reset(); }
  ResultPtr result_;
  RankDemoSettings shown_;
  bool haveShown_ = false;
  int rankOuter_ = -1, rankExp_ = -1, sweepShown_ = 0;
  std::vector<RankSweepPoint> lastSweep_;
};

}  // namespace attnlab::ui
