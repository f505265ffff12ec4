#pragma once
// What a user can do with any view besides looking at it: the context menu (export figure or
// numbers, copy to the clipboard) and the File ▸ Export dialog. Works for every TraceView through
// its viewName() and numbers(); the window only attaches views and passes the current result.
#include <QObject>
#include <QPointer>
#include <functional>
#include <vector>

#include "ui/shell/view_export.h"

namespace attnlab::ui {

class EncDecTrainingPanel;
class TrainingView;

class ViewActions : public QObject {
  Q_OBJECT
 public:
  ViewActions(QWidget* window, std::function<ResultPtr()> currentResult);

  /// Adds the context menu (Export…, Copy image) to `view` and to every widget inside it.
  void attach(TraceView* view);
  /// The export dialog for `view`, then the export; errors are shown in a message box.
  void exportWithDialog(TraceView* view);
  /// The view as a PNG (at twice the screen resolution) on the clipboard.
  void copyImage(TraceView* view);
  /// The context menu (Export…, Copy image) of the Training page, which is no TraceView.
  void attachTraining(TrainingView* view);
  /// The same for the Training page (no TraceView): its run so far, drawn without its controls
  /// (training_export.h), named "training".
  /// On the encoder–decoder tab: that tab's figure (exportEncDecTrainingWithDialog).
  void exportTrainingWithDialog(TrainingView* view);
  /// The encoder–decoder tab's run as a figure, without its controls (exportEncDecTraining).
  void exportEncDecTrainingWithDialog(EncDecTrainingPanel* panel);
  void copyTrainingImage(TrainingView* view);

  /// Lets `action`'s shortcuts through while `editor` has focus: a QLineEdit claims Ctrl+E (emacs's
  /// end of line, in Qt's X11 key bindings) through ShortcutOverride, so the action never fired.
  static void keepShortcutsIn(QWidget* editor, QAction* action);

  /// Carries out `request` for the on-screen `view`: a figure "as shown" renders the view itself,
  /// anything else an offscreen copy. Returns an error or "".
  QString run(TraceView* view, const ResultPtr& result, const ExportRequest& request, bool asShown);

 signals:
  /// After a successful export, with the file's absolute path (also said in the window's status bar).
  void exported(const QString& path);

 protected:
  /// A right click inside a QCustomPlot (or on a combo box) never reached the view: QCustomPlot sets
  /// WA_NoMousePropagation, which also stops QContextMenuEvent's propagation to the parents
  /// (QApplication::notify). Such events are sent on to the attached view they happened in (plots
  /// made later included, hence a filter on the application rather than on each widget).
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// The attached view `w` is in (or is), else nullptr.
  TraceView* attachedViewOf(QWidget* w) const;
  /// Tells how an export of `what` went: the error in a dialog, or the written file in the status bar and exported().
  void report(const QString& error, const QString& written, const QString& what);

  QWidget* window_;
  std::vector<QPointer<TraceView>> attached_;
  std::function<ResultPtr()> currentResult_;
};

}  // namespace attnlab::ui
