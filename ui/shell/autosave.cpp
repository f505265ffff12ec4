#include "ui/shell/autosave.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "ui/shell/session_io.h"

namespace attnlab::ui {

Autosave::Autosave(const QString& path, std::function<Params()> current, QObject* parent)
    : QObject(parent), path_(path), current_(std::move(current)) {
  timer_.setSingleShot(true);
  timer_.setInterval(1500);
  connect(&timer_, &QTimer::timeout, this, [this] { saveNow(); });
}

QString Autosave::defaultPath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("autosave.attnlab.json");
}

void Autosave::touch() { timer_.start(); }

QString Autosave::saveNow() {
  timer_.stop();
  QDir().mkpath(QFileInfo(path_).absolutePath());
  return saveSessionFile(path_, current_());
}

bool Autosave::hasRecovery() const { return QFileInfo::exists(path_); }

std::optional<Params> Autosave::recover(QString* error) const { return loadSessionFile(path_, error); }

void Autosave::clear() {
  timer_.stop();
  QFile::remove(path_);
}

}  // namespace attnlab::ui
