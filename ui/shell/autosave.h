#pragma once
// Autosave of the current parameters, and the crash-restore offer: the file is written (atomically)
// a moment after each edit and deleted on a clean exit, so finding it at start-up means the last run
// ended without closing — the window then offers to restore it.
// Each running window has its own file (autosave-<pid>.attnlab.json) and holds a lock on it (QLockFile, released
// by a clean exit and seen as stale once its process is gone): a second window never offers the first one's live
// autosave as a crash to restore, and two windows never overwrite each other's.
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>
#include <optional>

#include "core/session/params.h"

namespace attnlab::ui {

class Autosave : public QObject {
  Q_OBJECT
 public:
  Autosave(const QString& path, std::function<Params()> current, QObject* parent = nullptr);

  /// AppDataLocation/autosave-<pid>.attnlab.json: this process's own file.
  static QString defaultPath();
  /// The autosaves in `folder` that no running window holds (left by a crash, or by a version before the locks),
  /// newest first.
  static QStringList orphans(const QString& folder);
  const QString& path() const { return path_; }

  /// Schedules a save (debounced: one write per burst of edits).
  void touch();
  /// Writes now; returns an error or "".
  QString saveNow();
  /// A file left by a run that did not exit cleanly.
  bool hasRecovery() const;
  std::optional<Params> recover(QString* error) const;
  /// Clean exit (or the user declined the restore): removes the file.
  void clear();

 private:
  QString path_;
  std::function<Params()> current_;
  QTimer timer_;
  QLockFile lock_;  ///< path_ + ".lock", held while this window runs
};

}  // namespace attnlab::ui
