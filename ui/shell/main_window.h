#pragma once
// The main window: sentence editor on top, view navigator and parameter panel on the left, the page of
// the chosen view in the middle, status bar with timing, errors, progress and a cancel button. It wires
// widgets to the LiveController and owns nothing numeric.
#include <QMainWindow>
#include <optional>
#include <vector>

#include "ui/shell/live_controller.h"
#include "ui/shell/sentence_editor.h"
#include "ui/views/common/trace_view.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace attnlab::ui {

class EditorTokenLink;
class ModelOpener;
class TokenSelection;
class ParamPanel;
class ParamHistory;
class StatusLabel;
class TooLongBar;
class SessionActions;
class TargetBar;
class ViewActions;
class LessonPanel;
class TrainingView;
class ViewNavigator;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// `restoreSettings` false gives a window with the defaults (tests, benchmarks).
  explicit MainWindow(bool restoreSettings = true, QWidget* parent = nullptr);

  LiveController* controller() const { return controller_; }
  SentenceEditor* sentenceEditor() const { return sentence_; }
  ParamPanel* paramPanel() const { return panel_; }
  /// The view with the given export name, or nullptr.
  TraceView* view(const QString& name) const;
  /// Shows the page of `name` (a view's export name or "training") and selects its navigator entry.
  void showView(const QString& name);
  /// Applies parameters to every widget and runs them at once (sessions, the command line); shows
  /// the view they name when it exists.
  void applyParams(const Params& p);
  ModelOpener* modelOpener() const { return modelOpener_; }
  /// A user edit: recorded for undo, autosaved, run after the debounce.
  void edit(const Params& p);
  /// The parameters with the current view's name in selection.view (what a session saves).
  Params currentParams() const;
  /// The view of the current navigator entry (the heatmap on the training page).
  TraceView* currentView() const;
  ParamHistory* history() const { return history_; }
  SessionActions* sessions() const { return sessions_; }
  ViewActions* viewActions() const { return actions_; }
  LessonPanel* lessonPanel() const { return lessons_; }
  TrainingView* trainingView() const { return training_; }
  ViewNavigator* navigator() const { return navigator_; }
  /// The hovered token shared by the views and the sentence editor (pins are in the parameters).
  TokenSelection* tokenSelection() const { return selection_; }
  EditorTokenLink* editorTokens() const { return editorLink_; }
  TooLongBar* tooLongBar() const { return tooLong_; }
  /// An encoder–decoder's target editor, Translate, Next token and stack choice (hidden for other models).
  TargetBar* targetBar() const { return target_; }
  /// F11: full screen, large fonts, thick lines, high contrast.
  void setPresentation(bool on);
  /// The size of a first start (no saved geometry) on the window's screen: 1400 × 860, or the screen's available
  /// area, maximised, where that does not fit.
  void placeForFirstStart();
  bool presentation() const { return presentation_; }
  /// Ends the lesson: hides its panel and, when a step was applied, brings back the parameters of before
  /// the lesson's first step (one undoable step).
  void closeLesson();
  /// A UTF-8 text file becomes the sentence, line breaks kept (one undoable edit); a file that is no UTF-8 text gets
  /// a message naming it and the problem, and the sentence stays.
  void openText(const QString& path);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  void buildViewMenu();
  void onResult(const ResultPtr& result);
  void presentToVisibleViews();
  void setFontScaleEverywhere(double scale);
  /// Lessons and presentation mode give the view the room: folds the parameter panel (and, during a lesson, the views
  /// list) and gives the lesson about a quarter of the width; when neither runs, the docks come back exactly.
  void makeRoomForTheView();
  /// "session — Attention Lab" with the modified marker, or "Attention Lab" without a session file.
  void updateTitle();
  /// File ▸ Open text…: asks for a file and opens it with openText.
  void openTextFile();

  LiveController* controller_;
  ModelOpener* modelOpener_;
  SentenceEditor* sentence_;
  ParamPanel* panel_;
  ViewNavigator* navigator_;
  TokenSelection* selection_;
  EditorTokenLink* editorLink_;
  std::vector<TraceView*> views_;
  std::vector<TraceView*> stale_;  ///< views not shown the latest result yet (hidden pages)
  /// The model and text of the last result handed to the views: when either changes, hidden pages let their old
  /// result go (issue 31). Weak: the window keeps no model alive.
  std::weak_ptr<const Model> viewsModel_;
  std::string viewsText_;
  StatusLabel* status_;  ///< one line, elided, the whole text in its tooltip
  TooLongBar* tooLong_;
  TargetBar* target_;  ///< an encoder–decoder's target editor, Translate and Next token
  QProgressBar* progress_;
  QPushButton* cancel_;
  bool restoreSettings_;
  ParamHistory* history_;
  ViewActions* actions_;
  SessionActions* sessions_;
  LessonPanel* lessons_;
  TrainingView* training_ = nullptr;
  QAction* presentationAct_ = nullptr;
  bool presentation_ = false;
  /// Dock state (saveState) from before a lesson or presentation mode folded docks away; restored when both end.
  std::optional<QByteArray> docksBeforeFolding_;
  bool navigatorWasVisible_ = true;
  QByteArray geometryBeforePresentation_;  ///< saveGeometry() on entering presentation mode
  QFont normalFont_;
  std::optional<Params> beforeLesson_;  ///< the user's parameters while a lesson runs
};

}  // namespace attnlab::ui
