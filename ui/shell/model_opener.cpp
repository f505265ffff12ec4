#include "ui/shell/model_opener.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>

#include "core/train/shipped_models.h"
#include "ui/shell/live_controller.h"

namespace attnlab::ui {
namespace {

constexpr int kMaxRecent = 8;
const char* kRecentKey = "models/recent";

}  // namespace

ModelOpener::ModelOpener(QWidget* window, LiveController* controller, QMenu* menu,
                         std::function<void(const Params&)> apply)
    : QObject(window), window_(window), controller_(controller), apply_(std::move(apply)) {
  QAction* openAct = menu->addAction(tr("Open &model folder…"), this, &ModelOpener::chooseFolder);
  openAct->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
  openAct->setToolTip(tr("Open a Hugging Face checkpoint folder (config.json, model.safetensors, tokenizer)"));
  recentMenu_ = menu->addMenu(tr("Recent &models"));
  menu->addAction(tr("Use the &built-in model"), this, [this] { open(QString()); });
  QAction* trained = menu->addAction(tr("Use the trained &induction model"), this,
                                     [this] { open(QString::fromLatin1(kShippedInductionModel)); });
  trained->setToolTip(
      tr("A 2-layer model trained on the induction task: on \"the cat sat on the mat . the cat sat on "
         "the mat\" one head looks at the previous word, another at the word after the last "
         "occurrence of the current one."));
  QAction* reverse = menu->addAction(tr("Use the trained &reverse model (encoder–decoder)"), this,
                                     [this] { open(QString::fromLatin1(kShippedReverseModel)); });
  reverse->setToolTip(
      tr("A 1+1-layer encoder–decoder trained to reverse its source: \"d c b a\" translates to \"a b c d\", and its "
         "cross-attention is the anti-diagonal. Its symbols are the letters a to t."));
  rebuildRecentMenu();
  connect(controller_, &LiveController::resultReady, this, &ModelOpener::onResult);
}

bool ModelOpener::looksLikeCheckpoint(const QString& dir) {
  return QFileInfo(dir).isDir() && QFileInfo::exists(QDir(dir).filePath("config.json"));
}

void ModelOpener::chooseFolder() {
  const QString start = QSettings().value(kRecentKey).toStringList().value(0, QDir::homePath());
  const QString dir = QFileDialog::getExistingDirectory(window_, tr("Open a checkpoint folder"), start);
  if (!dir.isEmpty()) open(dir);
}

void ModelOpener::open(const QString& dir) {
  beforeOpen_ = controller_->params();
  Params p = beforeOpen_;
  p.modelDir = dir.toStdString();
  p.selection.layer = p.selection.head = 0;
  p.prediction.ablate.clear();
  p.prediction.ablateEncoder.clear();
  p.prediction.ablateCross.clear();  // the heads switched off belong to the model that is closed
  p.targetPending.clear();           // as do the ids of a character cut off (the target text stays)
  pending_ = dir;
  waiting_ = !dir.isEmpty();
  apply_(p);
}

void ModelOpener::onResult(const ResultPtr& result) {
  if (!waiting_ || result->params.modelDir != pending_.toStdString()) return;
  waiting_ = false;
  // A text longer than the model's positions is no reason to refuse the model: the window offers to keep the text's
  // last tokens (TooLongBar), and the text stays whole until that is pressed (issue 31).
  if (result->ok() || result->textTooLong()) {
    rememberRecent(pending_);
    return;
  }
  // Window-modal but not blocking: the live loop keeps running behind the message.
  auto* box =
      new QMessageBox(QMessageBox::Warning, tr("Cannot open the model"),
                      tr("The folder %1 could not be opened as a model:\n\n%2\n\nThe previous model stays in use.")
                          .arg(pending_, result->error),
                      QMessageBox::Ok, window_);
  box->setObjectName("modelError");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
  apply_(beforeOpen_);
}

void ModelOpener::rememberRecent(const QString& dir) {
  QSettings s;
  QStringList recent = s.value(kRecentKey).toStringList();
  recent.removeAll(dir);
  recent.prepend(dir);
  while (recent.size() > kMaxRecent) recent.removeLast();
  s.setValue(kRecentKey, recent);
  rebuildRecentMenu();
}

void ModelOpener::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList recent = QSettings().value(kRecentKey).toStringList();
  for (const QString& dir : recent) recentMenu_->addAction(dir, this, [this, dir] { open(dir); });
  recentMenu_->setEnabled(!recent.isEmpty());
}

}  // namespace attnlab::ui
