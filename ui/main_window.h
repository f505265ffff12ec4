#pragma once
// The main window: sentence editor on top, parameter panel on the left, views in tabs, status bar
// with timing, errors, progress and a cancel button. It wires widgets to the LiveController and
// owns nothing numeric.
#include <QMainWindow>
#include <vector>

#include "ui/live_controller.h"
#include "ui/trace_view.h"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;

namespace attnlab::ui {

class ModelOpener;
class ParamPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// `restoreSettings` false gives a window with the defaults (tests, benchmarks).
  explicit MainWindow(bool restoreSettings = true, QWidget* parent = nullptr);

  LiveController* controller() const { return controller_; }
  QLineEdit* sentenceEditor() const { return sentence_; }
  ParamPanel* paramPanel() const { return panel_; }
  /// The view with the given export name, or nullptr.
  TraceView* view(const QString& name) const;
  /// Makes the tab holding `name` current.
  void showView(const QString& name);
  /// Applies parameters to every widget and runs them at once (sessions, the command line).
  void applyParams(const Params& p);
  ModelOpener* modelOpener() const { return modelOpener_; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  void edit(const Params& p);
  void onResult(const ResultPtr& result);
  void presentToVisibleViews();
  void exportCurrentView();
  QWidget* currentTabWidget() const;

  LiveController* controller_;
  ModelOpener* modelOpener_;
  QLineEdit* sentence_;
  ParamPanel* panel_;
  QTabWidget* tabs_;
  QSplitter* attentionSplit_;
  std::vector<TraceView*> views_;
  std::vector<TraceView*> stale_;  ///< views not shown the latest result yet (hidden tabs)
  QLabel* status_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  bool restoreSettings_;
};

}  // namespace attnlab::ui
