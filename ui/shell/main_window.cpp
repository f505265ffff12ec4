#include "ui/shell/main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "core/base/errors.h"
#include "core/model/trace_memory.h"
#include "core/run/encdec_run.h"
#include "core/run/recorded_run.h"
#include "core/session/params_json.h"
#include "core/train/shipped_models.h"
#include "ui/plots/figure_export.h"
#include "ui/plots/view_style.h"
#include "ui/shell/lesson_panel.h"
#include "ui/shell/model_opener.h"
#include "ui/shell/param_history.h"
#include "ui/shell/param_panel.h"
#include "ui/shell/sentence_editor.h"
#include "ui/shell/session_actions.h"
#include "ui/shell/status_label.h"
#include "ui/shell/target_bar.h"
#include "ui/shell/too_long_bar.h"
#include "ui/shell/view_actions.h"
#include "ui/shell/view_navigator.h"
#include "ui/shell/view_pages.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/common/token_selection.h"
#include "ui/views/prediction/prediction_view.h"
#include "ui/views/training/training_view.h"

namespace attnlab::ui {
namespace {

/// Calls `onClose` when the watched widget gets a close event (a dock's × button).
class CloseWatcher : public QObject {
 public:
  CloseWatcher(std::function<void()> onClose, QObject* parent) : QObject(parent), onClose_(std::move(onClose)) {}
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() == QEvent::Close) onClose_();
    return false;
  }

 private:
  std::function<void()> onClose_;
};

/// Ctrl+Z and Ctrl+Shift+Z (Ctrl+Y) in the sentence editor go to the program's history, so that sentence edits and
/// parameter changes undo in the order they were made; QLineEdit's own undo jumped back to the sentence the program
/// started with (its history begins at the last setText) and never reached the parameters.
class EditorUndoToHistory : public QObject {
 public:
  using QObject::QObject;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::ShortcutOverride && event->type() != QEvent::KeyPress)
      return QObject::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    if (!key->matches(QKeySequence::Undo) && !key->matches(QKeySequence::Redo))
      return QObject::eventFilter(watched, event);
    // ShortcutOverride left unaccepted: the Edit menu's Undo/Redo runs. A key press that reaches the editor (nothing
    // to undo, the action disabled) is swallowed: the editor must not undo on its own either.
    return true;
  }
};

}  // namespace

MainWindow::MainWindow(bool restoreSettings, QWidget* parent) : QMainWindow(parent), restoreSettings_(restoreSettings) {
  setWindowTitle(tr("Attention Lab[*]"));
  setAcceptDrops(true);  // a checkpoint folder dropped on the window opens it
  normalFont_ = font();
  controller_ = new LiveController(this);
  history_ = new ParamHistory([this](const Params& p) { applyParams(p); }, this);
  actions_ = new ViewActions(this, [this] { return shownStack(controller_->lastResult()); });
  sessions_ = new SessionActions(
      this, [this] { return currentParams(); }, [this](const Params& p) { applyParams(p); });

  // Sentence editor: large, because a class reads it from the back of the room.
  // A page keeps its line breaks (issue 31): the editor grows to a few lines, Enter starts a new one.
  sentence_ = new SentenceEditor;
  sentence_->setPlaceholderText(tr("Type a sentence…"));
  QFont big = sentence_->font();
  big.setPointSizeF(big.pointSizeF() * 1.5);
  sentence_->setFont(big);
  sentence_->setToolTip(tr("The input sentence: every view follows as you type."));
  auto* top = new QWidget;
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(6, 6, 6, 0);
  topLayout->addWidget(sentence_);
  target_ = new TargetBar(sentence_);  // an encoder–decoder's second text (issue 33), hidden for other models
  topLayout->addWidget(target_);
  tooLong_ = new TooLongBar;
  topLayout->addWidget(tooLong_);
  connect(tooLong_, &TooLongBar::keepRequested, this,
          [this](const std::string& refused, const std::string& tail, bool target) {
            Params p = controller_->params();
            std::string& text = target ? p.target : p.sentence;  // an encoder–decoder's target, or the sentence
            if (text != refused) return;                         // typed on since: the offer was for another text
            text = tail;
            if (target) p.targetPending.clear();  // a character cut off at the end goes with the tokens cut
            edit(p);
          });

  // Views: one page each (heatmap and model view side by side), chosen in the navigator's chapters.
  auto* pages = new ViewPages;
  navigator_ = new ViewNavigator(pages);
  views_ = pages->views();
  training_ = pages->training();
  selection_ = new TokenSelection(this);
  editorLink_ = new EditorTokenLink(sentence_, selection_);
  selection_->installEscape(this);
  connect(selection_, &TokenSelection::cleared, this, [this] {  // Esc: an undoable edit, when there are pins
    Params p = controller_->params();
    if (p.selection.pinned.empty()) return;
    p.selection.pinned.clear();
    edit(p);
  });
  for (TraceView* v : views_) {
    v->setTokenSelection(selection_);
    v->setParamsInForce([this] { return controller_->params(); });
    connect(v, &TraceView::selectionRequested, this, [this](int l, int h) {
      Params p = controller_->params();
      p.selection.layer = l;
      p.selection.head = h;
      panel_->setParams(p);
      edit(p);
    });
    connect(v, &TraceView::paramsRequested, this, [this](const Params& p) {
      // The view edited a copy of its result's parameters, which may predate the typed sentence or a
      // panel change: only what the view changed is taken over.
      const ResultPtr shown = controller_->lastResult();
      const Params q = shown ? rebaseEdit(shown->params, p, controller_->params()) : p;
      panel_->setParams(q);
      edit(q);
    });
    actions_->attach(v);
  }
  actions_->attachTraining(training_);
  connect(navigator_, &ViewNavigator::currentChanged, this, &MainWindow::presentToVisibleViews);

  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(top);
  layout->addWidget(pages, 1);
  setCentralWidget(central);

  panel_ = new ParamPanel;
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(panel_->sizeHint().width() + 24);  // never a horizontal scroll bar
  auto* dock = new QDockWidget(tr("Parameters"));
  dock->setObjectName("parameters");
  dock->setWidget(scroll);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  auto* navigatorDock = new QDockWidget(tr("Views"));
  navigatorDock->setObjectName("navigator");
  navigatorDock->setWidget(navigator_);
  navigatorDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, navigatorDock);
  splitDockWidget(navigatorDock, dock, Qt::Horizontal);  // the chapters at the edge, parameters beside

  lessons_ = new LessonPanel;
  auto* lessonDock = new QDockWidget(tr("Lesson"));
  lessonDock->setObjectName("lesson");
  lessonDock->setWidget(lessons_);
  addDockWidget(Qt::RightDockWidgetArea, lessonDock);
  lessonDock->hide();  // View ▸ Lessons (or a lesson's first step) shows it
  // Closing the dock (its × or the panel's Close button) ends the lesson and restores the user's state.
  lessonDock->installEventFilter(new CloseWatcher([this] { closeLesson(); }, lessonDock));
  connect(lessons_, &LessonPanel::closeRequested, this, &MainWindow::closeLesson);
  connect(lessons_, &LessonPanel::stepRequested, this, [this, lessonDock](const Params& p, const QString& view) {
    const bool starting = lessonDock->isHidden();
    lessonDock->show();
    if (starting) makeRoomForTheView();
    if (!beforeLesson_) beforeLesson_ = currentParams();  // what closing the lesson brings back
    Params q = p;
    q.selection.view = view.toStdString();
    history_->record(controller_->params(), q);
    applyParams(q);
  });

  status_ = new StatusLabel;
  status_->setObjectName("status");
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(160);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setToolTip(tr("Stop the running computation."));
  cancel_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  buildMenus();

  connect(sentence_, &SentenceEditor::textEdited, this, [this](const QString& text) {
    Params p = controller_->params();
    p.sentence = text.toStdString();
    edit(p);
  });
  connect(target_, &TargetBar::targetEdited, this, [this](const QString& text) {
    Params p = controller_->params();
    p.target = text.toStdString();
    p.targetPending.clear();  // the typed text is what the decoder reads (undo brings a cut-off character back)
    edit(p);
  });
  connect(target_, &TargetBar::targetProduced, this,
          [this](const std::string& source, const std::string& target, const std::vector<int>& pending) {
            Params p = controller_->params();
            if (p.sentence != source) return;  // the source was edited while the translation ran: for another text
            p.target = target;
            p.targetPending = pending;
            edit(p);
          });
  connect(target_, &TargetBar::predictionEdited, this, [this](const PredictionSettings& s) {
    Params p = controller_->params();
    p.prediction = s;  // Generate's count, greedy/sampled and seed: the Prediction chapter's settings
    edit(p);
  });
  connect(target_, &TargetBar::stackChosen, this, [this](const std::string& stack) {
    Params p = controller_->params();
    p.selection.stack = stack;
    edit(p);
  });
  // The panel writes its fields into the parameters of this moment (the typed sentence included).
  connect(panel_, &ParamPanel::edited, this, [this] { edit(panel_->applyTo(controller_->params())); });
  connect(sessions_, &SessionActions::currentPathChanged, this, [this] {
    updateTitle();
    setWindowModified(false);  // just opened or saved
  });
  connect(sessions_, &SessionActions::warned, this,
          [this](const QString& message) { statusBar()->showMessage("⚠ " + message, 20000); });
  connect(sessions_, &SessionActions::saved, this, [this](const QString& path) {
    statusBar()->showMessage(tr("Saved session to %1").arg(QDir::toNativeSeparators(path)), 8000);
  });
  connect(controller_, &LiveController::resultReady, this, &MainWindow::onResult);
  connect(controller_, &LiveController::progress, this, [this](double f) { progress_->setValue(int(f * 100)); });
  connect(controller_, &LiveController::busyChanged, this, [this](bool busy) {
    // Only long runs show progress: a 0.1 ms forward pass would just flicker.
    if (!busy) {
      progress_->hide();
      cancel_->hide();
    } else {
      QTimer::singleShot(300, this, [this] {
        if (controller_->busy()) {
          progress_->show();
          cancel_->show();
        }
      });
    }
  });
  connect(cancel_, &QPushButton::clicked, controller_, &LiveController::cancel);

  Params initial;
  bool placed = false;
  if (restoreSettings_) {
    QSettings s;
    placed = restoreGeometry(s.value("window/geometry").toByteArray());
    restoreState(s.value("window/state").toByteArray());
    const QByteArray saved = s.value("params/last").toByteArray();
    if (saved.isEmpty()) {
      // A first start: heads that mean something. The shipped induction model on a repeated sentence
      // shows a previous-token head (layer 0) and an induction head (layer 1, selected); File ▸ Use the
      // built-in model switches to the random-weight transformer.
      initial.modelDir = kShippedInductionModel;
      initial.sentence = "the cat sat on the mat . the cat sat on the mat";
      initial.selection.layer = 1;
      initial.selection.head = 2;
    } else {
      try {
        initial = paramsFromJson(parseJsonText(saved.toStdString(), "saved parameters"));
      } catch (const InputError&) {
        initial = Params{};  // an unreadable saved state is replaced by the defaults, never fatal
      }
    }
  }
  if (!placed) placeForFirstStart();
  applyParams(initial);
  if (restoreSettings_) navigator_->rememberIn("navigator/view");
  history_->stack()->clear();  // the start is not an edit to undo
  updateTitle();
  setWindowModified(false);
  if (restoreSettings_) sessions_->startAutosave();
}

void MainWindow::buildViewMenu() {
  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  presentationAct_ = viewMenu->addAction(tr("&Presentation mode"), this, [this](bool on) { setPresentation(on); });
  presentationAct_->setCheckable(true);
  presentationAct_->setShortcut(QKeySequence(Qt::Key_F11));
  presentationAct_->setToolTip(tr("Full screen, large fonts, thick lines, high contrast: for the back of the room."));
  QAction* lessonsAct = viewMenu->addAction(tr("&Lessons panel"), this, [this](bool on) {
    if (on) {
      // Opening the panel applies the step it shows: its text then never describes another view or
      // sentence than the one on screen.
      lessons_->parentWidget()->show();
      lessons_->goToStep(lessons_->stepIndex());
    } else
      closeLesson();
  });
  lessonsAct->setCheckable(true);
  connect(viewMenu, &QMenu::aboutToShow, this,
          [this, lessonsAct] { lessonsAct->setChecked(lessons_->parentWidget()->isVisible()); });
  lessonsAct->setShortcut(QKeySequence(tr("Ctrl+L")));
  // The docks a lesson or presentation mode folds away, back on demand.
  for (const char* name : {"navigator", "parameters"})
    if (auto* dock = findChild<QDockWidget*>(name)) viewMenu->addAction(dock->toggleViewAction());
  viewMenu->addSeparator();
  QMenu* maps = viewMenu->addMenu(tr("&Colour map"));
  QMenu* themes = viewMenu->addMenu(tr("&Theme"));
  const auto addChoices = [this](QMenu* menu, const std::vector<std::string>& names, bool colormap) {
    auto* group = new QActionGroup(menu);
    for (const std::string& name : names) {
      QAction* a = menu->addAction(QString::fromStdString(name));
      a->setCheckable(true);
      group->addAction(a);
      connect(a, &QAction::triggered, this, [this, name, colormap] {
        Params p = controller_->params();
        (colormap ? p.display.colormap : p.display.theme) = name;
        edit(p);
      });
    }
    connect(menu, &QMenu::aboutToShow, this, [this, group, colormap] {
      const std::string& current =
          colormap ? controller_->params().display.colormap : controller_->params().display.theme;
      for (QAction* a : group->actions()) a->setChecked(a->text().toStdString() == current);
    });
  };
  addChoices(maps, colormapNames(), true);
  addChoices(themes, themeNames(), false);
  addAttentionScaleMenu(
      viewMenu, [this] { return controller_->params(); }, [this](const Params& p) { edit(p); });
  maps->setToolTip(
      tr("viridis, cividis and magma are perceptually uniform and colour-blind safe; diverging is for signed values."));
}

void MainWindow::setFontScaleEverywhere(double scale) {
  for (TraceView* v : views_) v->setFontScale(scale);
  training_->setFontScale(scale);
  lessons_->setFontScale(scale);
  navigator_->setFontScale(scale);
  QFont f = normalFont_;
  f.setPointSizeF(normalFont_.pointSizeF() * (scale > 1 ? 1.6 : 1.0));
  setFont(f);  // panels, tabs, dock titles of the window
  // Menus are popup windows: they do not inherit the window's font (nor, on some styles, does the
  // menu bar), so the back of the room would read the File menu at 9 pt.
  menuBar()->setFont(f);
  for (QMenu* menu : findChildren<QMenu*>()) menu->setFont(f);
  QFont big = f;
  big.setPointSizeF(f.pointSizeF() * 1.5);
  sentence_->setFont(big);
  target_->editor()->setFont(big);  // the translation reads as large as its source
}

void MainWindow::placeForFirstStart() {
  // 1400 × 860, or the whole screen where that does not fit (a 1280 × 720 projector got a window larger than itself,
  // its right and bottom edges off the screen, without a window manager to shrink it).
  const QSize preferred(1400, 860);
  const QRect room = screen() ? screen()->availableGeometry() : QRect(QPoint(0, 0), preferred);
  if (room.width() < preferred.width() + 40 || room.height() < preferred.height() + 40) {
    setGeometry(room);
    setWindowState(windowState() | Qt::WindowMaximized);
  } else {
    resize(preferred);
  }
}

void MainWindow::setPresentation(bool on) {
  // Full screen forgets the geometry and the maximised state: keep them to return to.
  if (on && !presentation_) geometryBeforePresentation_ = saveGeometry();
  const bool leaving = !on && presentation_;
  presentation_ = on;
  if (presentationAct_) presentationAct_->setChecked(on);
  ViewStyle::instance().setPresentation(on);
  setFontScaleEverywhere(on ? 2.0 : 1.0);
  makeRoomForTheView();  // the class looks at the views and the lesson: the parameter panel steps aside
  if (on) {
    showFullScreen();
    // Without a window manager (a bare X server, some kiosk set-ups) the full-screen state is only a
    // hint: fill the screen by hand when it was not honoured.
    QTimer::singleShot(300, this, [this] {
      if (presentation_ && screen() && size() != screen()->geometry().size()) setGeometry(screen()->geometry());
    });
  } else if (leaving) {
    // showNormal() alone leaves a window that was filled by hand (no window manager) at screen size,
    // and a window that was maximised before comes back unmaximised.
    showNormal();
    restoreGeometry(geometryBeforePresentation_);
  }
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  modelOpener_ = new ModelOpener(this, controller_, file, [this](const Params& p) { applyParams(p); });
  connect(training_, &TrainingView::useModelRequested, this, [this](const QString& dir) {
    modelOpener_->open(dir);
    showView("heatmap");
  });
  connect(training_, &TrainingView::useEncDecModelRequested, this, [this](const QString& dir) {
    modelOpener_->open(dir);
    showView("cross");  // what the encoder–decoder page showed: its cross-attention
  });
  QAction* openText = file->addAction(tr("Open &text…"), this, &MainWindow::openTextFile);
  openText->setToolTip(tr("Read a UTF-8 text file into the sentence editor, line breaks kept (as --sentence-file)"));
  file->addSeparator();
  sessions_->addToMenu(file);
  file->addSeparator();
  QAction* exportAct = file->addAction(tr("&Export current view…"), this, [this] {
    if (TraceView* v = navigator_->pages()->currentView()) return actions_->exportWithDialog(v);
    actions_->exportTrainingWithDialog(training_);  // the Training page is no TraceView
  });
  exportAct->setShortcut(QKeySequence(tr("Ctrl+E")));
  // From anywhere in the program, the sentence editor included (it would take Ctrl+E as end of line).
  exportAct->setShortcutContext(Qt::ApplicationShortcut);
  ViewActions::keepShortcutsIn(sentence_, exportAct);
  exportAct->setToolTip(tr("Save the current view as PDF, SVG or PNG, or the numbers behind it as CSV, JSON or NPY."));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = history_->stack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = history_->stack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  editMenu->addAction(undo);
  editMenu->addAction(redo);
  sentence_->installEventFilter(new EditorUndoToHistory(sentence_));
  editMenu->addSeparator();
  QAction* copy = editMenu->addAction(tr("&Copy view as image"), this, [this] {
    if (TraceView* v = navigator_->pages()->currentView()) return actions_->copyImage(v);
    actions_->copyTrainingImage(training_);
  });
  copy->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
  // Ctrl+G from anywhere, the sentence editor included: the Prediction view appends the model's next token.
  QAction* nextToken = editMenu->addAction(tr("Append the &next token"), this, [this] {
    showView("prediction");
    for (TraceView* v : views_)
      if (auto* p = qobject_cast<PredictionView*>(v)) p->generate(1);
  });
  nextToken->setShortcut(QKeySequence(tr("Ctrl+G")));
  // A page longer than the model's positions: refused with both lengths named, or (this on) its last tokens kept.
  QAction* keepLast =
      editMenu->addAction(tr("&Keep the last tokens of a text too long for the model"), this, [this](bool on) {
        Params p = controller_->params();
        p.keepLastTokens = on ? Params::kKeepAsManyAsFit : 0;
        edit(p);
      });
  keepLast->setCheckable(true);
  connect(editMenu, &QMenu::aboutToShow, this,
          [this, keepLast] { keepLast->setChecked(controller_->params().keepLastTokens > 0); });
  nextToken->setShortcutContext(Qt::ApplicationShortcut);
  ViewActions::keepShortcutsIn(sentence_, nextToken);
  buildViewMenu();

  QMenu* lesson = menuBar()->addMenu(tr("&Lesson"));
  QAction* next = lesson->addAction(tr("&Next step"), lessons_, &LessonPanel::next);
  next->setShortcuts({QKeySequence(Qt::Key_PageDown), QKeySequence(tr("Alt+Right"))});
  QAction* prev = lesson->addAction(tr("&Previous step"), lessons_, &LessonPanel::previous);
  prev->setShortcuts({QKeySequence(Qt::Key_PageUp), QKeySequence(tr("Alt+Left"))});
  lesson->addSeparator();
  const QStringList titles = lessons_->lessonTitles();
  for (int i = 0; i < titles.size(); ++i) lesson->addAction(titles[i], this, [this, i] { lessons_->selectLesson(i); });
  lesson->addAction(tr("&Open lesson file…"), lessons_, &LessonPanel::openDialog);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Attention Lab"), this, [this] {
    QMessageBox::about(this, tr("About Attention Lab"),
                       tr("<b>Attention Lab</b><br>Runs small transformers live and draws what happens inside "
                          "them: attention weights, heads, queries, keys and values."));
  });
}

TraceView* MainWindow::view(const QString& name) const {
  for (TraceView* v : views_)
    if (v->viewName() == name) return v;
  return nullptr;
}

void MainWindow::showView(const QString& name) { navigator_->select(name); }

void MainWindow::applyParams(const Params& p) {
  if (sentence_->text().toStdString() != p.sentence) sentence_->setText(QString::fromStdString(p.sentence));
  target_->setParams(p);
  panel_->setParams(p);
  ViewStyle::instance().setDisplay(p.display);
  showView(QString::fromStdString(p.selection.view));
  controller_->setParamsNow(p);
  sessions_->edited();
  setWindowModified(true);
}

void MainWindow::edit(const Params& edited) {
  Params p = edited;
  // Pins follow their tokens through an edit of the text; a pinned token the edit changed loses its pin, with a note.
  const std::vector<std::string> dropped =
      carryPinsThroughEdit(p, controller_->params().sentence, controller_->lastResult());
  if (!dropped.empty()) {
    QStringList names;
    for (const std::string& t : dropped) names << QStringLiteral("“%1”").arg(QString::fromStdString(t));
    statusBar()->showMessage(tr("Pin removed from %1: the edit changed that token").arg(names.join(", ")), 8000);
  }
  // A view's edit may change the sentence (a strongest context clicked, Next token, Generate): the editor shows it, or
  // the next keystroke would throw the new text away (issue 31).
  if (sentence_->text().toStdString() != p.sentence) sentence_->setText(QString::fromStdString(p.sentence));
  target_->setParams(p);
  history_->record(controller_->params(), p);
  ViewStyle::instance().setDisplay(p.display);
  controller_->setParams(p);
  sessions_->edited();
  setWindowModified(true);
}

void MainWindow::openTextFile() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open a text"), QString(), tr("Text (*.txt *.md *.text);;All files (*)"));
  if (!path.isEmpty()) openText(path);
}

void MainWindow::openText(const QString& path) {
  QString error;
  const QString text = SentenceEditor::readTextFile(path, &error);
  if (!error.isEmpty()) {
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open the text"), error, QMessageBox::Ok, this);
    box->setObjectName("textError");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return;
  }
  Params p = controller_->params();
  p.sentence = text.toStdString();
  edit(p);
}

void MainWindow::closeLesson() {
  lessons_->parentWidget()->hide();
  makeRoomForTheView();        // the docks as they were before the lesson (or as presentation mode wants them)
  if (!beforeLesson_) return;  // the panel was open, but no step was applied
  const Params before = *beforeLesson_;
  beforeLesson_.reset();
  history_->record(controller_->params(), before);  // one step: Undo brings the lesson's last step back
  applyParams(before);
}

void MainWindow::makeRoomForTheView() {
  auto* params = findChild<QDockWidget*>("parameters");
  auto* views = findChild<QDockWidget*>("navigator");
  QWidget* lessonDock = lessons_->parentWidget();
  const bool lesson = !lessonDock->isHidden();
  if (!lesson && !presentation_) {
    if (!docksBeforeFolding_) return;
    const QByteArray state = *docksBeforeFolding_;
    docksBeforeFolding_.reset();
    restoreState(state);  // exactly the docks the user had, sizes included
    lessonDock->hide();   // the state may have been saved with the lesson's first step already showing
    return;
  }
  if (!docksBeforeFolding_) {
    docksBeforeFolding_ = saveState();
    navigatorWasVisible_ = !views->isHidden();
  }
  // The parameter panel folds away in both modes (View ▸ Parameters brings it back); during a lesson the views list
  // too, since the lesson chooses the view: on a 1280 × 720 projector in F11 the view kept 420 px of width otherwise.
  params->hide();
  views->setVisible(!lesson && navigatorWasVisible_);
  if (lesson) resizeDocks({static_cast<QDockWidget*>(lessonDock)}, {width() * 28 / 100}, Qt::Horizontal);
}

void MainWindow::updateTitle() {
  const QString path = sessions_->currentPath();
  if (path.isEmpty()) {
    setWindowTitle(tr("Attention Lab[*]"));
    return;
  }
  QString name = QFileInfo(path).fileName();
  for (const char* suffix : {".attnlab.json", ".json"})
    if (name.endsWith(QLatin1String(suffix))) {
      name.chop(static_cast<int>(qstrlen(suffix)));
      break;
    }
  setWindowTitle(tr("%1[*] — Attention Lab").arg(name));
}

Params MainWindow::currentParams() const {
  Params p = controller_->params();
  p.selection.view = navigator_->current().toStdString();
  return p;
}

TraceView* MainWindow::currentView() const {
  if (TraceView* v = navigator_->pages()->currentView()) return v;
  return views_.empty() ? nullptr : views_.front();  // the training page exports and copies the heatmap
}

void MainWindow::onResult(const ResultPtr& delivered) {
  tooLong_->setResult(delivered);
  target_->setResult(delivered);
  const ResultPtr result = shownStack(delivered);  // an encoder–decoder's chosen stack (issue 33)
  if (!result->ok()) {
    status_->setStyleSheet("color: #b2182b; font-weight: bold;");
    status_->setText(tr("⚠ %1 — showing the last valid result").arg(result->error));
    for (TraceView* v : views_) v->showFailure(result);
    panel_->showFailedRun(*result, controller_->lastResult());  // not "loading" for ever when a checkpoint fails
    return;
  }
  status_->setStyleSheet({});
  const PipelineResult& run = *result->run;
  // Memory is shown with the budgets that bound it (issue 18): the trace against the activation budget, and for a
  // long input (no maps kept) the cache the views' recomputed maps live in.
  const bool tiled =
      !run.trace.layers.empty() && !run.trace.layers[0].heads.empty() && !run.trace.layers[0].heads[0].keepsMaps();
  const auto size = [](double bytes) { return QString::fromStdString(humanBytes(bytes)); };
  QString memory = tr("trace %1").arg(size(traceBytes(run.trace)));
  if (tiled && run.maps)
    memory += tr(" (activations ≤ %1), maps recomputed on demand (cache ≤ %2)")
                  .arg(size(activationBudgetBytes()), size(run.maps->budget()));
  // A run file from Python (`--run`): whether this is its hooked run or a live one, and why (core/run/recorded_run.h).
  const std::string recorded = recordedRunNote(run, result->params);
  status_->setText(tr("%1%2 · %3 tokens · forward %4 ms · %5")
                       .arg(recorded.empty() ? QString() : QString::fromStdString(recorded) + " · ")
                       .arg(QString::fromStdString(run.info.name))
                       .arg(run.trace.tokenCount())
                       .arg(result->forwardMs, 0, 'f', 2)
                       .arg(memory) +
                   // the cross stack: which views draw it, and that the others show the decoder (issue 33)
                   (showsCross(*result) ? " · " + crossAbsentNote(*result) : QString()));
  ModelInfo shape = run.info;  // the selectors' limits are what the trace has (1 head below multi-head)
  shape.layers = run.trace.layerCount();
  shape.heads = run.trace.headCount();
  panel_->setModelShape(shape);
  panel_->setModelCausal(run.trace.causal);
  panel_->showModel(wholeModel(run), result->params.modelDir);  // an encoder–decoder's card shows both stacks
  // The sentence editor holds the source: its tokens link to the views only while they show the encoder.
  editorLink_->setResult(delivered->ok() && delivered->run->encdec && result == delivered ? ResultPtr() : result);
  stale_ = views_;
  // Another model or text: a page not shown since would keep the old trace (and model) alive (issue 31).
  if (viewsModel_.lock() != run.model || viewsText_ != result->params.sentence)
    for (TraceView* v : views_)
      if (!v->isVisibleTo(this)) v->releaseResult();
  viewsModel_ = run.model;
  viewsText_ = result->params.sentence;
  presentToVisibleViews();
}

void MainWindow::presentToVisibleViews() {
  const ResultPtr r = shownStack(controller_->lastResult());
  if (!r) return;
  // Hidden pages get the result when they are shown: only what is visible is redrawn per edit.
  bool presented = false;
  for (auto it = stale_.begin(); it != stale_.end();) {
    if ((*it)->isVisibleTo(this)) {
      (*it)->showResult(r);
      it = stale_.erase(it);
      presented = true;
    } else {
      ++it;
    }
  }
  if (presented) controller_->returnFreedMemoryIfDue(stale_.empty());  // those pages let an old result go
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.size() == 1 && ModelOpener::looksLikeCheckpoint(urls[0].toLocalFile())) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.size() == 1) modelOpener_->open(urls[0].toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (restoreSettings_) {
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    s.setValue("params/last", QByteArray::fromStdString(toJson(controller_->params()).dump()));
  }
  sessions_->shutdown();
  event->accept();
}

}  // namespace attnlab::ui
