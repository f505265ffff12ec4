#pragma once
// Base of every view: it takes a ComputeResult and draws it; it never computes a forward pass.
// Views that change the selection (a click on a head) emit selectionRequested; views with controls of
// their own (sliders, toggles) edit a copy of result->params and emit paramsRequested. The window
// turns both into parameter edits, so everything stays in the one parameter struct.
#include <QWidget>
#include <functional>

#include "core/session/view_numbers.h"
#include "ui/plots/figure_export.h"  // kScreenOnlyProperty
#include "ui/views/common/compute_result.h"

namespace attnlab::ui {

class TokenSelection;

class TraceView : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  /// The name used by `attnlab export --view` and in session files.
  virtual QString viewName() const = 0;
  /// Tab title in the window.
  virtual QString displayName() const = 0;
  virtual void showResult(const ResultPtr& result) = 0;
  /// A run that failed (result->error; the window keeps the last valid result on screen): a view whose own
  /// control asked for what failed says so beside it. The default does nothing.
  virtual void showFailure(const ResultPtr& /*result*/) {}
  /// A hidden page when a new trace arrived (another model or text, issue 31): cancels the view's analyses and lets
  /// its result go with everything derived from it (dropResult), so a switched-away model's trace and weights are not
  /// kept alive by a page not shown since. The window gives the view the current result when it is shown again.
  void releaseResult();
  /// Presentation mode: scale fonts (1 = normal).
  virtual void setFontScale(double) {}
  /// Blocks until the analyses the view started on its BackgroundJobs have finished and been drawn
  /// (`attnlab export`, tests). The default waits for every BackgroundJob child; a finished job's
  /// result arrives as a queued event whose handler may start another job, hence the rounds.
  virtual void waitForAnalyses();
  /// The numbers behind what the view draws for `result` (CSV/JSON/NPY export). Called after
  /// showResult(result). The default is the attention matrix of the selected layer and head; views
  /// that draw something else override it.
  virtual ViewNumbers numbers(const ComputeResult& result) const;
  /// Whether the view draws an encoder–decoder's cross stack (selection.stack "cross": target rows × source
  /// columns). The others show the decoder there, and the window and `attnlab export` say so (crossAbsentNote).
  virtual bool drawsCross() const { return false; }
  /// False while a background analysis for the last result is still running: exporters wait
  /// (processing events) until it is true, so a figure never shows a half-finished view.
  virtual bool isReady() const;
  /// The hovered token shared by every view (owned by the window): views that show tokens set it on
  /// hover and highlight it in onHoverChanged. Without one (a view alone, `attnlab export`) hover
  /// stays inside the view.
  void setTokenSelection(TokenSelection* selection);
  TokenSelection* tokenSelection() const { return selection_; }
  /// The window's parameters in force now (the editor's text typed but not run yet, an edit whose run failed), which
  /// may be newer than the shown result's. Set by the window; a view alone uses its result's.
  void setParamsInForce(std::function<Params()> current) { paramsInForce_ = std::move(current); }

 protected:
  /// releaseResult's part of each view: reset the held result and the caches made from it. The default holds none.
  virtual void dropResult() {}
  virtual void onHoverChanged(int /*token*/) {}
  /// Esc: views with a focus of their own (the head view's hovered column) drop it.
  virtual void onSelectionCleared() {}
  /// Sets the shared hovered token (−1: none); a no-op without a selection.
  void hoverToken(int token);
  int hoveredToken() const;
  /// setParamsInForce's parameters, or `result`'s without one. For edits that carry values the view did not change
  /// (Side by side's Swap moves the window's text into its field).
  Params paramsInForce(const ComputeResult& result) const { return paramsInForce_ ? paramsInForce_() : result.params; }
  /// A click on token `token` of `result`'s sentence: emits paramsRequested with the pins changed
  /// (pinsAfterClick), so that the window records it as an undoable edit.
  void requestPinClick(const ResultPtr& result, int token, bool extend);
  /// A matrix with token or index labels, for numbers().
  static LabelledMatrix labelled(const std::string& name, const QString& title, const MatD& values,
                                 const QStringList& rowLabels, const QStringList& colLabels);
  /// Head (l, h)'s attention as numbers: the whole map [n, n] up to kFullMapNumbersTokens tokens; beyond, the map
  /// pooled into its summary's cells (max and mean, head_summary.h; labels name each cell's token span), since a
  /// table of 8,192² numbers is no use to anyone and would not fit in memory for every head.
  static void addAttentionNumbers(ViewNumbers& n, const ComputeResult& result, int l, int h);
  static constexpr int kFullMapNumbersTokens = 2048;
  /// The frame of numbers(): view name, title, the parameters that produced them.
  ViewNumbers numbersFrame(const ComputeResult& result, const QString& title) const;

 signals:
  void selectionRequested(int layer, int head);
  void paramsRequested(const attnlab::Params& params);

 private:
  TokenSelection* selection_ = nullptr;
  std::function<Params()> paramsInForce_;
};

}  // namespace attnlab::ui
