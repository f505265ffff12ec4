#include "ui/shell/view_actions.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QFileInfo>
#include <QKeyEvent>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>

#include "ui/shell/export_dialog.h"
#include "ui/shell/training_export.h"
#include "ui/views/training/training_view.h"

namespace attnlab::ui {
namespace {

/// Declines, for its editor, the ShortcutOverride of the action's key sequences, so the shortcut map
/// triggers the action instead of the editor taking the key.
class ShortcutPassThrough : public QObject {
 public:
  ShortcutPassThrough(QWidget* editor, QAction* action) : QObject(editor), action_(action) {}

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::ShortcutOverride || !action_ || !action_->isEnabled())
      return QObject::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    const QKeySequence pressed(key->keyCombination());
    for (const QKeySequence& s : action_->shortcuts())
      if (s.matches(pressed) == QKeySequence::ExactMatch) return true;  // left unaccepted: the shortcut runs
    return QObject::eventFilter(watched, event);
  }

 private:
  QPointer<QAction> action_;
};

/// Widgets that end a right click without a menu of their own, so the view around them never sees
/// it: QCustomPlot sets WA_NoMousePropagation (which QApplication::notify also applies to
/// QContextMenuEvent), a non-editable QComboBox accepts the event and shows nothing.
bool swallowsContextMenu(QWidget* w) {
  if (w->contextMenuPolicy() != Qt::DefaultContextMenu || qobject_cast<TraceView*>(w)) return false;
  if (auto* combo = qobject_cast<QComboBox*>(w)) return !combo->isEditable();
  return w->testAttribute(Qt::WA_NoMousePropagation);
}

}  // namespace

void ViewActions::keepShortcutsIn(QWidget* editor, QAction* action) {
  editor->installEventFilter(new ShortcutPassThrough(editor, action));
}

ViewActions::ViewActions(QWidget* window, std::function<ResultPtr()> currentResult)
    : QObject(window), window_(window), currentResult_(std::move(currentResult)) {}

void ViewActions::attach(TraceView* view) {
  if (attached_.empty()) qApp->installEventFilter(this);
  attached_.emplace_back(view);
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view, &QWidget::customContextMenuRequested, this, [this, view](const QPoint& pos) {
    QMenu menu(view);
    menu.addAction(tr("Export figure or numbers…"), this, [this, view] { exportWithDialog(view); });
    menu.addAction(tr("Copy image"), this, [this, view] { copyImage(view); });
    menu.exec(view->mapToGlobal(pos));
  });
}

TraceView* ViewActions::attachedViewOf(QWidget* w) const {
  for (; w; w = w->parentWidget())
    for (const QPointer<TraceView>& v : attached_)
      if (v == w) return v;
  return nullptr;
}

bool ViewActions::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ContextMenu || !watched->isWidgetType()) return QObject::eventFilter(watched, event);
  auto* w = static_cast<QWidget*>(watched);
  if (!swallowsContextMenu(w)) return QObject::eventFilter(watched, event);  // it reaches the view by itself
  TraceView* view = attachedViewOf(w->parentWidget());
  if (!view) return QObject::eventFilter(watched, event);
  const auto* e = static_cast<QContextMenuEvent*>(event);
  QContextMenuEvent forwarded(e->reason(), w->mapTo(view, e->pos()), e->globalPos(), e->modifiers());
  QApplication::sendEvent(view, &forwarded);
  return true;
}

void ViewActions::exportWithDialog(TraceView* view) {
  const ResultPtr result = currentResult_();
  if (!result || !result->ok()) {
    QMessageBox::information(window_, tr("Export"), tr("There is no result to export yet."));
    return;
  }
  QStringList matrices;
  try {
    for (const LabelledMatrix& m : view->numbers(*result).matrices) matrices << QString::fromStdString(m.name);
  } catch (const std::exception& e) {  // out of a slot it would end the program
    QMessageBox::warning(window_, tr("Export failed"), QString::fromUtf8(e.what()));
    return;
  }
  ExportDialog dialog(view->viewName(), view->size(), matrices, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const QString error = run(view, result, dialog.request(), dialog.asShown());
  QApplication::restoreOverrideCursor();
  report(error, dialog.request().path, view->displayName());
}

void ViewActions::report(const QString& error, const QString& written, const QString& what) {
  if (!error.isEmpty()) {
    QMessageBox::warning(window_, tr("Export failed"), error);
    return;
  }
  const QString path = QDir::toNativeSeparators(QFileInfo(written).absoluteFilePath());
  if (auto* main = qobject_cast<QMainWindow*>(window_))
    main->statusBar()->showMessage(tr("Saved %1 to %2").arg(what, path), 15000);
  emit exported(path);
}

QString ViewActions::run(TraceView* view, const ResultPtr& result, const ExportRequest& request, bool asShown) {
  if (asShown && isFigureFormat(request.format)) return writeViewFigure(view, request);
  return exportView(result, request);
}

void ViewActions::copyImage(TraceView* view) { QApplication::clipboard()->setImage(renderWidgetImage(view, 2.0)); }

void ViewActions::attachTraining(TrainingView* view) {
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view, &QWidget::customContextMenuRequested, this, [this, view](const QPoint& pos) {
    QMenu menu(view);
    menu.addAction(tr("Export figure or numbers…"), this, [this, view] { exportTrainingWithDialog(view); });
    menu.addAction(tr("Copy image"), this, [this, view] { copyTrainingImage(view); });
    menu.exec(view->mapToGlobal(pos));
  });
}

void ViewActions::exportTrainingWithDialog(TrainingView* view) {
  if (view->showsEncDec()) {
    exportEncDecTrainingWithDialog(view->encDecPanel());
    return;
  }
  const TrainingUpdatePtr run = view->run();
  if (!run) {
    QMessageBox::information(window_, tr("Export"), tr("The Training view has not drawn a run yet."));
    return;
  }
  ExportDialog dialog(kTrainingExportName, view->size(), {"loss", "scores"}, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  // Always an offscreen copy ("as shown" at the page's size): the figure leaves the controls out.
  const QString error = exportTraining(run, dialog.request());
  QApplication::restoreOverrideCursor();
  report(error, dialog.request().path, tr("Training"));
}

void ViewActions::exportEncDecTrainingWithDialog(EncDecTrainingPanel* panel) {
  const EncDecTrainingRun run = panel->run();
  if (!run.latest) {
    QMessageBox::information(window_, tr("Export"), tr("The encoder–decoder tab has no trained model drawn yet."));
    return;
  }
  QStringList matrices;
  for (const LabelledMatrix& m : EncDecTrainingPanel::numbers(run).matrices) matrices << QString::fromStdString(m.name);
  ExportDialog dialog(kTrainingExportName, panel->size(), matrices, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const QString error = exportEncDecTraining(run, dialog.request());  // a figure: an offscreen copy, no controls
  QApplication::restoreOverrideCursor();
  report(error, dialog.request().path, tr("Training (encoder–decoder)"));
}

void ViewActions::copyTrainingImage(TrainingView* view) {
  if (view->showsEncDec()) {  // the tab as shown, its controls left out
    QApplication::clipboard()->setImage(renderWidgetImage(view->encDecPanel(), 2.0));
    return;
  }
  const QImage image = trainingImage(view->run(), view->size(), 2.0);
  if (!image.isNull()) QApplication::clipboard()->setImage(image);
}

}  // namespace attnlab::ui
