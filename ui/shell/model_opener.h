#pragma once
// Opening a checkpoint folder from the window: File ▸ Open model folder, the recent-models list,
// drag and drop of a folder, and going back to the built-in model. Loading runs on the controller's
// worker (weights mmapped, progress and cancel as for any long run); a folder that cannot be loaded
// gets a dialog naming the file and the problem, and the previous model stays in use.
#include <QObject>
#include <QString>

#include "core/session/params.h"
#include "ui/views/common/compute_result.h"

class QMenu;
class QWidget;

namespace attnlab::ui {

class LiveController;

class ModelOpener : public QObject {
  Q_OBJECT
 public:
  /// Adds its actions to `menu`; `window` parents the dialogs. `apply` sets parameters everywhere.
  ModelOpener(QWidget* window, LiveController* controller, QMenu* menu, std::function<void(const Params&)> apply);

  /// Switches to the checkpoint in `dir` ("" = the built-in model).
  void open(const QString& dir);
  /// True for a local folder holding a config.json (what drag and drop accepts).
  static bool looksLikeCheckpoint(const QString& dir);

 private:
  void chooseFolder();
  void onResult(const ResultPtr& result);
  void rememberRecent(const QString& dir);
  void rebuildRecentMenu();

  QWidget* window_;
  LiveController* controller_;
  QMenu* recentMenu_;
  std::function<void(const Params&)> apply_;
  QString pending_;    ///< folder being opened, until its first result arrives
  Params beforeOpen_;  ///< restored when opening fails
  bool waiting_ = false;
};

}  // namespace attnlab::ui
