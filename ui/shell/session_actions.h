#pragma once
// File ▸ Open/Save/Save As/Open Recent of sessions, autosave, and the crash-restore offer. The window
// supplies the current parameters (with its current view) and a way to apply opened ones; a failed
// open shows a message and applies nothing, so what is open is never lost.
#include <QDateTime>
#include <QObject>
#include <QStringList>
#include <functional>

#include "core/session/params.h"

class QMenu;
class QWidget;

namespace attnlab::ui {

class Autosave;

class SessionActions : public QObject {
  Q_OBJECT
 public:
  SessionActions(QWidget* window, std::function<Params()> current, std::function<void(const Params&)> apply);

  /// Adds Open, Open Recent, Save, Save As to `file`.
  void addToMenu(QMenu* file);
  /// Opens `path`; on failure shows the message (unless `quiet`) and returns false, changing nothing.
  bool openPath(const QString& path, bool quiet = false, QString* error = nullptr);
  /// Saves to `path`; returns an error or "".
  QString saveTo(const QString& path);
  /// Starts autosaving to `path` (empty: the default place) and, when a previous run left an
  /// autosave behind, asks whether to restore it.
  void startAutosave(const QString& path = {}, bool offerRestore = true);
  /// Called after every edit: schedules an autosave.
  void edited();
  /// Clean exit: removes the autosave.
  void shutdown();
  const QString& currentPath() const { return path_; }
  /// True when the current session file was changed on disk (another window, another program) since this window
  /// opened or last saved it: File ▸ Save then asks before overwriting.
  bool changedOnDisk() const;
  QStringList recentFiles() const;

 signals:
  void currentPathChanged(const QString& path);
  /// A save to `path` succeeded (the window says so in its status bar).
  void saved(const QString& path);
  /// A session opened with keys the program does not read: the message names them (and the closest known keys).
  void warned(const QString& message);

 private:
  void open();
  void save();
  void saveAs();
  void addRecent(const QString& path);
  void fillRecentMenu();

  QWidget* window_;
  std::function<Params()> current_;
  std::function<void(const Params&)> apply_;
  QString path_;
  QDateTime diskTime_;  ///< path_'s modification time and size when this window last read or wrote it
  qint64 diskSize_ = -1;
  QMenu* recentMenu_ = nullptr;
  Autosave* autosave_ = nullptr;
};

}  // namespace attnlab::ui
