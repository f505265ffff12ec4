#pragma once
// Autosave of the current parameters, and the crash-restore offer: the file is written (atomically)
// a moment after each edit and deleted on a clean exit, so finding it at start-up means the last run
// ended without closing — the window then offers to restore it.
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

  /// AppDataLocation/autosave.attnlab.json
  static QString defaultPath();
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
};

}  // namespace attnlab::ui
