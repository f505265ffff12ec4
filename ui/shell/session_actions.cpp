#include "ui/shell/session_actions.h"

#include <QCoreApplication>

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

#include "ui/shell/autosave.h"
#include "ui/shell/session_io.h"

namespace attnlab::ui {

namespace {
constexpr int kMaxRecent = 8;
}

SessionActions::SessionActions(QWidget* window, std::function<Params()> current,
                               std::function<void(const Params&)> apply)
    : QObject(window), window_(window), current_(std::move(current)), apply_(std::move(apply)) {}

void SessionActions::addToMenu(QMenu* file) {
  QAction* open = file->addAction(tr("&Open session…"), this, &SessionActions::open);
  open->setShortcut(QKeySequence::Open);
  open->setToolTip(tr("Open a saved session: sentence, model, every parameter and the view."));
  recentMenu_ = file->addMenu(tr("Open &recent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, &SessionActions::fillRecentMenu);
  fillRecentMenu();
  QAction* save = file->addAction(tr("&Save session"), this, &SessionActions::save);
  save->setShortcut(QKeySequence::Save);
  QAction* saveAs = file->addAction(tr("Save session &as…"), this, &SessionActions::saveAs);
  saveAs->setShortcut(QKeySequence::SaveAs);
}

QStringList SessionActions::recentFiles() const { return QSettings().value("session/recent").toStringList(); }

void SessionActions::addRecent(const QString& path) {
  QStringList recent = recentFiles();
  const QString abs = QFileInfo(path).absoluteFilePath();
  recent.removeAll(abs);
  recent.prepend(abs);
  while (recent.size() > kMaxRecent) recent.removeLast();
  QSettings().setValue("session/recent", recent);
}

void SessionActions::fillRecentMenu() {
  if (!recentMenu_) return;
  recentMenu_->clear();
  const QStringList recent = recentFiles();
  for (int i = 0; i < recent.size(); ++i) {
    const QString path = recent[i];
    QAction* a = recentMenu_->addAction(QString("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
                                        [this, path] { openPath(path); });
    a->setToolTip(path);
  }
  recentMenu_->setEnabled(!recent.isEmpty());
}

bool SessionActions::openPath(const QString& path, bool quiet, QString* error) {
  QString message, warning;
  const std::optional<Params> p = loadSessionFile(path, &message, &warning);
  if (!p) {
    if (error) *error = message;
    if (!quiet)
      QMessageBox::warning(window_, tr("Cannot open session"),
                           message + tr("\n\nNothing was changed: the current session is still open."));
    return false;
  }
  apply_(*p);
  path_ = path;
  diskTime_ = QFileInfo(path).lastModified();
  diskSize_ = QFileInfo(path).size();
  addRecent(path);
  emit currentPathChanged(path_);
  if (!warning.isEmpty()) emit warned(warning);  // after the title's update, so the status bar keeps it
  return true;
}

QString SessionActions::saveTo(const QString& path) {
  const QString error = saveSessionFile(path, current_());
  if (error.isEmpty()) {
    path_ = path;
    diskTime_ = QFileInfo(path).lastModified();
    diskSize_ = QFileInfo(path).size();
    addRecent(path);
    emit currentPathChanged(path_);
    emit saved(path_);
  }
  return error;
}

void SessionActions::open() {
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Open session"), QFileInfo(path_).path(), sessionFileFilter());
  if (!path.isEmpty()) openPath(path);
}

bool SessionActions::changedOnDisk() const {
  if (path_.isEmpty()) return false;
  const QFileInfo f(path_);
  return f.exists() && (f.lastModified() != diskTime_ || f.size() != diskSize_);
}

void SessionActions::save() {
  if (path_.isEmpty()) return saveAs();
  if (changedOnDisk()) {
    // Two windows on one file: the last save used to win silently.
    QMessageBox box(QMessageBox::Warning, tr("The session file changed"),
                    tr("'%1' was changed on disk (by another window or program) since this window opened or saved "
                       "it. Overwrite those changes with this session?")
                        .arg(path_),
                    QMessageBox::NoButton, window_);
    QPushButton* overwrite = box.addButton(tr("Overwrite"), QMessageBox::DestructiveRole);
    QPushButton* saveAsButton = box.addButton(tr("Save As…"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() == saveAsButton) return saveAs();
    if (box.clickedButton() != overwrite) return;
  }
  const QString error = saveTo(path_);
  if (!error.isEmpty()) QMessageBox::warning(window_, tr("Cannot save session"), error);
}

void SessionActions::saveAs() {
  QString path = QFileDialog::getSaveFileName(
      window_, tr("Save session"), path_.isEmpty() ? QString("session.attnlab.json") : path_, sessionFileFilter());
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += ".attnlab.json";
  const QString error = saveTo(path);
  if (!error.isEmpty()) QMessageBox::warning(window_, tr("Cannot save session"), error);
}

namespace {

/// A pasted page would fill the dialog past the screen's height: its first 120 characters, then how much more.
QString elidedSentence(const QString& s) {
  constexpr int kShown = 120;
  if (s.size() <= kShown) return s;
  return QCoreApplication::translate("SessionActions", "%1… (%2 characters in all)").arg(s.left(kShown)).arg(s.size());
}

}  // namespace

void SessionActions::startAutosave(const QString& path, bool offerRestore) {
  const bool ownFile = path.isEmpty();  // this window's autosave-<pid> file; the crashed ones are the orphans
  autosave_ = new Autosave(ownFile ? Autosave::defaultPath() : path, current_, this);
  QString recovery;
  if (offerRestore) {
    if (ownFile) {
      const QStringList left = Autosave::orphans(QFileInfo(autosave_->path()).absolutePath());
      if (!left.isEmpty()) recovery = left.front();
    } else if (autosave_->hasRecovery()) {
      recovery = autosave_->path();
    }
  }
  if (!recovery.isEmpty()) {
    QString error;
    const std::optional<Params> p = loadSessionFile(recovery, &error);
    const auto answer =
        p ? QMessageBox::question(window_, tr("Restore the last session?"),
                                  tr("Attention Lab did not close normally last time. Restore the state it "
                                     "autosaved (sentence “%1”)?")
                                      .arg(elidedSentence(QString::fromStdString(p->sentence))),
                                  QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes)
          : QMessageBox::No;
    if (p && answer == QMessageBox::Yes) apply_(*p);
    if (recovery != autosave_->path()) QFile::remove(recovery);  // offered once: restored, or declined
  }
  autosave_->saveNow();  // from now on the file marks a running session
}

void SessionActions::edited() {
  if (autosave_) autosave_->touch();
}

void SessionActions::shutdown() {
  if (autosave_) autosave_->clear();
}

}  // namespace attnlab::ui
