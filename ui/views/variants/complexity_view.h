#pragma once
// Time of each variant's explicit (n×n) and efficient path vs sequence length n, measured live on
// random inputs of the current head size and m, in a BackgroundJob (n up to 16384 for the efficient
// paths, 4096 for the quadratic ones — never on the GUI thread). Log–log: O(n²) has slope 2, O(n)
// slope 1; with m = 4·d_head the linear kinds lose to softmax on short sequences.
#include <QLabel>

#include "core/variants/complexity_sweep.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

class QCustomPlot;

namespace attnlab::ui {

class ComplexityView : public TraceView {
  Q_OBJECT
 public:
  explicit ComplexityView(QWidget* parent = nullptr);
  QString viewName() const override { return "complexity"; }
  QString displayName() const override { return tr("Complexity"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;

  /// Smaller sweeps for tests.
  void setLimits(const SweepLimits& limits) { limits_ = limits; }
  std::shared_ptr<const ComplexitySweep> sweep() const { return sweep_; }

 private:
  void draw();
  QString crossOverText() const;

  QCustomPlot* plot_;
  QLabel* status_;
  BackgroundJob job_;
  SweepLimits limits_;
  std::string key_;
  std::shared_ptr<const ComplexitySweep> sweep_;
};

}  // namespace attnlab::ui
