#include "ui/views/training/trained_model_folder.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QStandardPaths>

namespace attnlab::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("TrainedModelFolder", text); }
}  // namespace

QString newTrainedModelFolder(const QString& stem) {
  const QString base = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/trained";
  QDir().mkpath(base);
  return base + "/" + stem + "-" + QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss-zzz");
}

QString saveForViews(QWidget* parent, const QString& stem, const SaveModelFn& save) {
  const QString dir = newTrainedModelFolder(stem);
  const QString error = save(dir);
  if (!error.isEmpty()) {
    QMessageBox::warning(parent, tr("Use in views"), tr("The model could not be saved: %1").arg(error));
    return {};
  }
  return dir;
}

void saveWithDialog(QWidget* parent, const QString& caption, const QString& suggestedName, const SaveModelFn& save) {
  const QString dir = QFileDialog::getSaveFileName(parent, caption, QDir::home().filePath(suggestedName));
  if (dir.isEmpty()) return;
  const QString error = save(dir);
  if (!error.isEmpty()) QMessageBox::warning(parent, tr("Save model"), error);
}

}  // namespace attnlab::ui
