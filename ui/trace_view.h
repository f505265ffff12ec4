#pragma once
// Base of every view: it takes a ComputeResult and draws it; it never computes a forward pass.
// Views that change the selection (a click on a head) emit selectionRequested; views with controls of
// their own (sliders, toggles) edit a copy of result->params and emit paramsRequested. The window
// turns both into parameter edits, so everything stays in the one parameter struct.
#include <QWidget>

#include "ui/compute_result.h"

namespace attnlab::ui {

class TraceView : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  /// The name used by `attnlab export --view` and in session files.
  virtual QString viewName() const = 0;
  /// Tab title in the window.
  virtual QString displayName() const = 0;
  virtual void showResult(const ResultPtr& result) = 0;
  /// Presentation mode: scale fonts (1 = normal).
  virtual void setFontScale(double) {}
  /// Blocks until the analyses the view started on its BackgroundJobs have finished and been drawn
  /// (`attnlab export`, tests). Views that compute nothing of their own need not override it.
  virtual void waitForAnalyses() {}

 signals:
  void selectionRequested(int layer, int head);
  void paramsRequested(const attnlab::Params& params);
};

}  // namespace attnlab::ui
