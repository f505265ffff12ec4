#pragma once
// "Linear attention needs a larger key size to keep its rank" (seeds/000): numerical rank and mean
// row entropy of softmax vs linear attention (1 + elu, eˣ, relu, Performer with m = 4d) as the key
// size d grows, on random Q, K. n, the seed and the largest d are parameters
// (Params::spectra.headSize); the sweep runs on a BackgroundJob when they change.
#include <QLabel>
#include <QSpinBox>

#include "core/variants/head_size_sweep.h"
#include "ui/plots/spectrum_plot.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

class HeadSizeView : public TraceView {
  Q_OBJECT
 public:
  explicit HeadSizeView(QWidget* parent = nullptr);
  QString viewName() const override { return "head-size"; }
  QString displayName() const override { return tr("Head size"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;

  const HeadSizeSweep& sweep() const { return sweep_; }

 private:
  void emitEdit();
  void showSweep(const HeadSizeSweep& s);

  QSpinBox* n_;
  QSpinBox* seed_;
  QSpinBox* maxKey_;
  TitledPlot* rank_;
  TitledPlot* entropy_;
  QLabel* info_;
  BackgroundJob* job_;
  void dropResult() override { result_.reset(); }
  ResultPtr result_;
  HeadSizeSettings shown_;
  bool haveShown_ = false;
  HeadSizeSweep sweep_;
};

}  // namespace attnlab::ui
