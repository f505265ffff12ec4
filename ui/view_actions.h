#pragma once
// What a user can do with any view besides looking at it: the context menu (export figure or
// numbers, copy to the clipboard) and the File ▸ Export dialog. Works for every TraceView through
// its viewName() and numbers(); the window only attaches views and passes the current result.
#include <QObject>
#include <functional>

#include "ui/view_export.h"

namespace attnlab::ui {

class ViewActions : public QObject {
  Q_OBJECT
 public:
  ViewActions(QWidget* window, std::function<ResultPtr()> currentResult);

  /// Adds the context menu (Export…, Copy image) to `view`.
  void attach(TraceView* view);
  /// The export dialog for `view`, then the export; errors are shown in a message box.
  void exportWithDialog(TraceView* view);
  /// The view as a PNG (at twice the screen resolution) on the clipboard.
  void copyImage(TraceView* view);

  /// Carries out `request` for the on-screen `view`: a figure "as shown" renders the view itself,
  /// anything else an offscreen copy. Returns an error or "".
  QString run(TraceView* view, const ResultPtr& result, const ExportRequest& request, bool asShown);

 signals:
  void exported(const QString& path);

 private:
  QWidget* window_;
  std::function<ResultPtr()> currentResult_;
};

}  // namespace attnlab::ui
