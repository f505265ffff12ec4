#include "ui/shell/autosave.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "ui/shell/session_io.h"

namespace attnlab::ui {

Autosave::Autosave(const QString& path, std::function<Params()> current, QObject* parent)
    : QObject(parent), path_(path), current_(std::move(current)), lock_(path + ".lock") {
  lock_.setStaleLockTime(0);  // stale only when its process is gone, however old
  QDir().mkpath(QFileInfo(path_).absolutePath());
  lock_.tryLock(0);
  timer_.setSingleShot(true);
  timer_.setInterval(1500);
  connect(&timer_, &QTimer::timeout, this, [this] { saveNow(); });
}

QString Autosave::defaultPath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QString("autosave-%1.attnlab.json").arg(QCoreApplication::applicationPid()));
}

QStringList Autosave::orphans(const QString& folder) {
  QStringList out;
  const QFileInfoList files =
      QDir(folder).entryInfoList({"autosave*.attnlab.json"}, QDir::Files, QDir::Time);  // newest first
  for (const QFileInfo& f : files) {
    QLockFile lock(f.absoluteFilePath() + ".lock");
    lock.setStaleLockTime(0);
    if (!lock.tryLock(0)) continue;  // a running window's own file
    lock.unlock();
    out << f.absoluteFilePath();
  }
  return out;
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
