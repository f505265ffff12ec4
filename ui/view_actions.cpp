#include "ui/view_actions.h"

#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QMessageBox>

#include "ui/export_dialog.h"

namespace attnlab::ui {

ViewActions::ViewActions(QWidget* window, std::function<ResultPtr()> currentResult)
    : QObject(window), window_(window), currentResult_(std::move(currentResult)) {}

void ViewActions::attach(TraceView* view) {
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view, &QWidget::customContextMenuRequested, this, [this, view](const QPoint& pos) {
    QMenu menu(view);
    menu.addAction(tr("Export figure or numbers…"), this, [this, view] { exportWithDialog(view); });
    menu.addAction(tr("Copy image"), this, [this, view] { copyImage(view); });
    menu.exec(view->mapToGlobal(pos));
  });
}

void ViewActions::exportWithDialog(TraceView* view) {
  const ResultPtr result = currentResult_();
  if (!result || !result->ok()) {
    QMessageBox::information(window_, tr("Export"), tr("There is no result to export yet."));
    return;
  }
  QStringList matrices;
  for (const LabelledMatrix& m : view->numbers(*result).matrices) matrices << QString::fromStdString(m.name);
  ExportDialog dialog(view->viewName(), view->size(), matrices, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const QString error = run(view, result, dialog.request(), dialog.asShown());
  QApplication::restoreOverrideCursor();
  if (!error.isEmpty())
    QMessageBox::warning(window_, tr("Export failed"), error);
  else
    emit exported(dialog.request().path);
}

QString ViewActions::run(TraceView* view, const ResultPtr& result, const ExportRequest& request, bool asShown) {
  if (asShown && isFigureFormat(request.format)) return writeViewFigure(view, request);
  return exportView(result, request);
}

void ViewActions::copyImage(TraceView* view) { QApplication::clipboard()->setImage(renderWidgetImage(view, 2.0)); }

}  // namespace attnlab::ui
