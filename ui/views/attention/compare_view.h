#pragma once
// Side by side (issue 31): the selected head's attention in two runs, in two panes aligned by token position, and
// their difference in a third. The two runs are
//   Second text            the window's text (left) and a second text typed in the view's field (right), with the
//                          same model, ablations and settings;
//   Without the ablation   the window's text without its switched-off heads (left) and with them (right: the window's
//                          own run).
// The difference is right − left, on a diverging scale, only where both runs have the position (the common prefix:
// core/predict/map_comparison.h); the caption says how many positions that is. The second run is a forward pass on the
// view's worker with the window's model; it is kept while only the selection changes, and redone on an edit that
// changes it or a model switch. It goes (with its trace) as soon as the window's result is another model's, or there is
// nothing to compare with. Inputs beyond kMaxPositions tokens are compared on their first kMaxPositions.
#include <QLabel>

#include "core/predict/map_comparison.h"
#include "ui/plots/matrix_plot.h"
#include "ui/views/common/trace_view.h"

class QComboBox;
class QLineEdit;
class QPushButton;

namespace attnlab::ui {

class BackgroundJob;

class CompareView : public TraceView {
  Q_OBJECT
 public:
  enum class Mode { SecondText, Ablation };
  /// Longer inputs are compared on their first this many positions (three n × n panes of cells).
  static constexpr int kMaxPositions = 256;

  explicit CompareView(QWidget* parent = nullptr);
  QString viewName() const override { return "compare"; }
  QString displayName() const override { return tr("Side by side"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;

  void setMode(Mode mode);
  Mode mode() const { return mode_; }
  /// The second text (Second text mode); the right pane follows.
  void setSecondText(const QString& text);
  QString secondText() const;
  /// Makes the second text the window's (paramsRequested) and the window's text in force (typed or failed since the
  /// last run included) the second.
  void swapTexts();

  MatrixPlot* leftPlot() const { return left_; }
  MatrixPlot* rightPlot() const { return right_; }
  MatrixPlot* differencePlot() const { return diff_; }
  QLabel* caption() const { return caption_; }
  /// The run shown on the right in Second text mode, or on the left without the ablation (null: none yet).
  ResultPtr otherRun() const { return other_; }

 protected:
  void onHoverChanged(int token) override;

 private:
  /// The parameters of the other run for `r`, or false when there is none to make (no second text, no ablation).
  bool otherParams(const ComputeResult& r, Params& q, QString& why) const;
  /// Forgets the other run (and stops one being made).
  void releaseOther();
  /// Starts the other run when its parameters changed, then draws.
  void refresh();
  void draw();
  /// The other run made for `r` (null: none, or not yet).
  ResultPtr otherFor(const ComputeResult& r) const;
  /// The panes' two runs for the window's `shown`, left and right (either may be null).
  std::pair<ResultPtr, ResultPtr> sides(const ResultPtr& shown) const;

  Mode mode_ = Mode::SecondText;
  QComboBox* modeBox_;
  QLineEdit* text_;
  QPushButton* swap_;
  MatrixPlot *left_, *right_, *diff_;
  QLabel* caption_;
  BackgroundJob* job_;
  void dropResult() override {
    result_.reset();
    other_.reset();
    otherKey_.clear();
  }
  ResultPtr result_;
  ResultPtr other_;        ///< the other run, for otherKey_
  std::string otherKey_;   ///< model and parameters of other_
  std::string wantedKey_;  ///< those the shown result needs ("": none)
  QString otherError_;     ///< why the other run failed
};

}  // namespace attnlab::ui
