#include "ui/main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>

#include "core/errors.h"
#include "core/params_json.h"
#include "core/shipped_models.h"
#include "ui/figure_export.h"
#include "ui/lesson_panel.h"
#include "ui/model_opener.h"
#include "ui/param_history.h"
#include "ui/param_panel.h"
#include "ui/session_actions.h"
#include "ui/training_view.h"
#include "ui/view_actions.h"
#include "ui/view_factory.h"
#include "ui/view_style.h"

namespace attnlab::ui {
namespace {

/// A tab page that scrolls when the window is narrower than the view's controls want: a QTabWidget is
/// as wide as its widest page, and the variants and collapse views would otherwise push the window
/// past the screen once the lesson panel opens (or fonts grow in presentation mode).
QScrollArea* scrollable(QWidget* view) {
  auto* area = new QScrollArea;
  area->setWidget(view);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

}  // namespace

MainWindow::MainWindow(bool restoreSettings, QWidget* parent) : QMainWindow(parent), restoreSettings_(restoreSettings) {
  setWindowTitle(tr("Attention Lab"));
  setAcceptDrops(true);  // a checkpoint folder dropped on the window opens it
  normalFont_ = font();
  controller_ = new LiveController(this);
  history_ = new ParamHistory([this](const Params& p) { applyParams(p); }, this);
  actions_ = new ViewActions(this, [this] { return controller_->lastResult(); });
  sessions_ = new SessionActions(
      this, [this] { return currentParams(); }, [this](const Params& p) { applyParams(p); });

  // Sentence editor: large, because a class reads it from the back of the room.
  sentence_ = new QLineEdit;
  sentence_->setPlaceholderText(tr("Type a sentence…"));
  QFont big = sentence_->font();
  big.setPointSizeF(big.pointSizeF() * 1.5);
  sentence_->setFont(big);
  sentence_->setToolTip(tr("The input sentence: every view follows as you type."));
  auto* top = new QWidget;
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(6, 6, 6, 0);
  topLayout->addWidget(sentence_);

  // Views: heatmap and model overview side by side, the others in their own tabs.
  tabs_ = new QTabWidget;
  attentionSplit_ = new QSplitter(Qt::Horizontal);
  for (const QString& name : viewNames()) {
    TraceView* v = createView(name);
    views_.push_back(v);
    connect(v, &TraceView::selectionRequested, this, [this](int l, int h) {
      Params p = controller_->params();
      p.selection.layer = l;
      p.selection.head = h;
      panel_->setParams(p);
      edit(p);
    });
    connect(v, &TraceView::paramsRequested, this, [this](const Params& p) {
      panel_->setParams(p);
      edit(p);
    });
    actions_->attach(v);
    if (name == "heatmap" || name == "model") {
      attentionSplit_->addWidget(v);
    } else {
      tabs_->addTab(scrollable(v), v->displayName());
    }
  }
  attentionSplit_->setStretchFactor(0, 3);
  attentionSplit_->setStretchFactor(1, 2);
  attentionSplit_->setSizes({640, 420});
  tabs_->insertTab(0, attentionSplit_, tr("Attention"));
  // Training is not a view of the sentence's trace: it trains its own model (on its own thread) and
  // hands it to the views with "Use in views".
  training_ = new TrainingView;
  tabs_->insertTab(1, training_, tr("Training"));  // beside Attention: a headline of the program
  tabs_->setCurrentIndex(0);
  connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::presentToVisibleViews);

  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(top);
  layout->addWidget(tabs_, 1);
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

  lessons_ = new LessonPanel;
  auto* lessonDock = new QDockWidget(tr("Lesson"));
  lessonDock->setObjectName("lesson");
  lessonDock->setWidget(lessons_);
  addDockWidget(Qt::RightDockWidgetArea, lessonDock);
  lessonDock->hide();  // View ▸ Lessons (or a lesson's first step) shows it
  connect(lessons_, &LessonPanel::stepRequested, this, [this, lessonDock](const Params& p, const QString& view) {
    lessonDock->show();
    Params q = p;
    q.selection.view = view.toStdString();
    history_->record(controller_->params(), q);
    applyParams(q);
  });

  status_ = new QLabel;
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

  connect(sentence_, &QLineEdit::textEdited, this, [this](const QString& text) {
    Params p = controller_->params();
    p.sentence = text.toStdString();
    edit(p);
  });
  connect(panel_, &ParamPanel::paramsEdited, this, &MainWindow::edit);
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
  if (!placed) resize(1400, 860);
  applyParams(initial);
  history_->stack()->clear();  // the start is not an edit to undo
  if (restoreSettings_) sessions_->startAutosave();
}

void MainWindow::buildViewMenu() {
  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  presentationAct_ = viewMenu->addAction(tr("&Presentation mode"), this, [this](bool on) { setPresentation(on); });
  presentationAct_->setCheckable(true);
  presentationAct_->setShortcut(QKeySequence(Qt::Key_F11));
  presentationAct_->setToolTip(tr("Full screen, large fonts, thick lines, high contrast: for the back of the room."));
  QAction* lessonsAct =
      viewMenu->addAction(tr("&Lessons panel"), this, [this](bool on) { lessons_->parentWidget()->setVisible(on); });
  lessonsAct->setCheckable(true);
  lessonsAct->setShortcut(QKeySequence(tr("Ctrl+L")));
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
  maps->setToolTip(
      tr("viridis, cividis and magma are perceptually uniform and colour-blind safe; diverging is for signed values."));
}

void MainWindow::setFontScaleEverywhere(double scale) {
  for (TraceView* v : views_) v->setFontScale(scale);
  training_->setFontScale(scale);
  lessons_->setFontScale(scale);
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
}

void MainWindow::setPresentation(bool on) {
  // Full screen forgets the geometry and the maximised state: keep them to return to.
  if (on && !presentation_) geometryBeforePresentation_ = saveGeometry();
  const bool leaving = !on && presentation_;
  presentation_ = on;
  if (presentationAct_) presentationAct_->setChecked(on);
  ViewStyle::instance().setPresentation(on);
  setFontScaleEverywhere(on ? 2.0 : 1.0);
  // The class looks at the views and the lesson: the parameter panel steps aside (and comes back).
  if (auto* params = findChild<QDockWidget*>("parameters")) {
    if (on) paramsWereVisible_ = params->isVisible();
    params->setVisible(!on && paramsWereVisible_);
  }
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
    tabs_->setCurrentIndex(0);
  });
  file->addSeparator();
  sessions_->addToMenu(file);
  file->addSeparator();
  QAction* exportAct =
      file->addAction(tr("&Export current view…"), this, [this] { actions_->exportWithDialog(currentView()); });
  exportAct->setShortcut(QKeySequence(tr("Ctrl+E")));
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
  editMenu->addSeparator();
  QAction* copy = editMenu->addAction(tr("&Copy view as image"), this, [this] { actions_->copyImage(currentView()); });
  copy->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
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

void MainWindow::showView(const QString& name) {
  TraceView* v = view(name);
  if (!v) return;
  for (int i = 0; i < tabs_->count(); ++i)
    if (tabs_->widget(i) == v || tabs_->widget(i)->isAncestorOf(v)) tabs_->setCurrentIndex(i);
}

void MainWindow::applyParams(const Params& p) {
  if (sentence_->text().toStdString() != p.sentence) sentence_->setText(QString::fromStdString(p.sentence));
  panel_->setParams(p);
  ViewStyle::instance().setDisplay(p.display);
  showView(QString::fromStdString(p.selection.view));
  controller_->setParamsNow(p);
  sessions_->edited();
}

void MainWindow::edit(const Params& p) {
  history_->record(controller_->params(), p);
  ViewStyle::instance().setDisplay(p.display);
  controller_->setParams(p);
  sessions_->edited();
}

Params MainWindow::currentParams() const {
  Params p = controller_->params();
  if (TraceView* v = currentView()) p.selection.view = v->viewName().toStdString();
  return p;
}

TraceView* MainWindow::currentView() const {
  QWidget* w = tabs_->currentWidget();
  if (auto* v = qobject_cast<TraceView*>(w)) return v;
  for (TraceView* v : views_)
    if (w && w->isAncestorOf(v)) return v;  // the attention tab: its first view, the heatmap
  return views_.empty() ? nullptr : views_.front();
}

void MainWindow::onResult(const ResultPtr& result) {
  if (!result->ok()) {
    status_->setStyleSheet("color: #b2182b; font-weight: bold;");
    status_->setText(tr("⚠ %1 — showing the last valid result").arg(result->error));
    return;
  }
  status_->setStyleSheet({});
  const PipelineResult& run = *result->run;
  status_->setText(tr("%1 · %2 tokens · forward %3 ms")
                       .arg(QString::fromStdString(run.info.name))
                       .arg(run.trace.tokenCount())
                       .arg(result->forwardMs, 0, 'f', 2));
  panel_->setModelShape(run.trace.layerCount(), run.trace.headCount());
  stale_ = views_;
  presentToVisibleViews();
}

void MainWindow::presentToVisibleViews() {
  const ResultPtr r = controller_->lastResult();
  if (!r) return;
  // Hidden tabs get the result when they are shown: only what is visible is redrawn per edit.
  for (auto it = stale_.begin(); it != stale_.end();) {
    if ((*it)->isVisibleTo(this)) {
      (*it)->showResult(r);
      it = stale_.erase(it);
    } else {
      ++it;
    }
  }
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
