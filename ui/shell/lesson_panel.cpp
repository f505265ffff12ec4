#include "ui/shell/lesson_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

#include "core/base/errors.h"
#include "ui/shell/lesson_library.h"
#include "ui/shell/view_factory.h"
#include "ui/shell/view_pages.h"

namespace attnlab::ui {
namespace {

constexpr double kBodyPoints = 10;  ///< the step text at font scale 1

}  // namespace

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent) {
  chooser_ = new QComboBox;
  chooser_->setObjectName("lessonChooser");
  chooser_->setToolTip(tr("Choose a guided lesson; each step sets the sentence, the parameters and the view."));
  // As narrow as a quarter of a projector's width: the longest title would otherwise set the panel's width.
  chooser_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  chooser_->setMinimumContentsLength(8);
  auto* open = new QPushButton(tr("Open…"));
  open->setToolTip(tr("Load your own lesson file (JSON, see the README)."));
  title_ = new QLabel;
  title_->setObjectName("lessonStepTitle");
  title_->setWordWrap(true);
  counter_ = new QLabel;
  text_ = new QTextBrowser;
  text_->setOpenExternalLinks(true);
  text_->setMinimumHeight(120);
  note_ = new QLabel;
  note_->setWordWrap(true);
  note_->setStyleSheet("color: #b35806;");
  note_->hide();
  prev_ = new QPushButton(tr("◀ Previous"));
  prev_->setToolTip(tr("Previous step (Page Up or Alt+Left)"));
  next_ = new QPushButton(tr("Next ▶"));
  next_->setToolTip(tr("Next step (Page Down or Alt+Right)"));
  prev_->setObjectName("lessonPrevious");
  next_->setObjectName("lessonNext");
  nextLesson_ = new QPushButton;
  nextLesson_->setObjectName("nextLesson");
  nextLesson_->hide();
  auto* close = new QPushButton(tr("Close"));
  close->setObjectName("lessonClose");
  close->setToolTip(tr("End the lesson and bring back the sentence and settings you had before it."));

  auto* top = new QHBoxLayout;
  top->addWidget(chooser_, 1);
  top->addWidget(open);
  top->addWidget(close);
  auto* nav = new QHBoxLayout;
  nav->addWidget(prev_);
  nav->addWidget(counter_, 1, Qt::AlignCenter);
  nav->addWidget(next_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(title_);
  layout->addWidget(text_, 1);
  layout->addWidget(note_);
  layout->addLayout(nav);
  layout->addWidget(nextLesson_);

  for (const QString& file : builtinLessonFiles()) {
    try {
      lessons_.push_back(loadLessonFile(file));
      chooser_->addItem(QString::fromStdString(lessons_.back().title));
    } catch (const InputError& e) {
      qWarning("%s", e.what());  // a broken shipped lesson is a bug the tests catch; skip it here
    }
  }
  connect(chooser_, &QComboBox::activated, this, &LessonPanel::selectLesson);
  connect(open, &QPushButton::clicked, this, &LessonPanel::openDialog);
  connect(prev_, &QPushButton::clicked, this, &LessonPanel::previous);
  connect(next_, &QPushButton::clicked, this, &LessonPanel::next);
  connect(nextLesson_, &QPushButton::clicked, this, [this] { selectLesson(lesson_ + 1); });
  connect(close, &QPushButton::clicked, this, &LessonPanel::closeRequested);
  setFontScale(1.0);
  if (!lessons_.empty()) {
    lesson_ = 0;
    showStep();  // shown, not applied: the lesson starts when the user asks for it
  }
}

const Lesson* LessonPanel::currentLesson() const {
  return lesson_ >= 0 && lesson_ < lessonCount() ? &lessons_[static_cast<std::size_t>(lesson_)] : nullptr;
}

QStringList LessonPanel::lessonTitles() const {
  QStringList titles;
  for (const Lesson& l : lessons_) titles << QString::fromStdString(l.title);
  return titles;
}

QString LessonPanel::note() const { return note_->isHidden() ? QString() : note_->text(); }

QString LessonPanel::openFile(const QString& path, bool showErrors) {
  try {
    lessons_.push_back(loadLessonFile(path));
  } catch (const InputError& e) {
    const QString message = QString::fromStdString(e.what());
    if (showErrors) QMessageBox::warning(this, tr("Cannot load the lesson"), message);
    return message;
  }
  chooser_->addItem(QString::fromStdString(lessons_.back().title));
  selectLesson(lessonCount() - 1);
  return {};
}

void LessonPanel::openDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open lesson"), {}, tr("Lessons (*.json)"));
  if (!path.isEmpty()) openFile(path);
}

void LessonPanel::selectLesson(int index) {
  if (index < 0 || index >= lessonCount()) return;
  lesson_ = index;
  chooser_->setCurrentIndex(index);
  goToStep(0);
}

void LessonPanel::goToStep(int index) {
  const Lesson* l = currentLesson();
  if (!l) return;
  step_ = std::clamp(index, 0, static_cast<int>(l->steps.size()) - 1);
  showStep();
  const LessonStep& s = l->steps[static_cast<std::size_t>(step_)];
  emit stepRequested(s.params, QString::fromStdString(s.view));
}

void LessonPanel::next() {
  const Lesson* l = currentLesson();
  if (!l) return;
  if (step_ + 1 < static_cast<int>(l->steps.size()))
    goToStep(step_ + 1);
  else if (lesson_ + 1 < lessonCount())
    selectLesson(lesson_ + 1);  // a clicker has only these two keys: the class goes on into the next lesson
}

void LessonPanel::previous() {
  if (step_ > 0) {
    goToStep(step_ - 1);
  } else if (lesson_ > 0) {
    // Back across the boundary, onto the previous lesson's last step (one step applied, not its first).
    lesson_ -= 1;
    chooser_->setCurrentIndex(lesson_);
    goToStep(static_cast<int>(lessons_[static_cast<std::size_t>(lesson_)].steps.size()) - 1);
  }
}

void LessonPanel::showStep() {
  const Lesson* l = currentLesson();
  if (!l) return;
  const LessonStep& s = l->steps[static_cast<std::size_t>(step_)];
  title_->setText(QString::fromStdString(s.title));
  counter_->setText(tr("Step %1 of %2").arg(step_ + 1).arg(l->steps.size()));
  QString html;
  for (const QString& para : QString::fromStdString(s.text).split("\n\n")) html += "<p>" + para + "</p>";
  text_->setHtml(html);
  prev_->setEnabled(step_ > 0 || lesson_ > 0);
  const bool last = step_ + 1 == static_cast<int>(l->steps.size());
  const bool more = last && lesson_ + 1 < lessonCount();
  next_->setEnabled(!last || more);
  nextLesson_->setVisible(more);
  if (more)
    nextLesson_->setText(
        tr("Next lesson: %1").arg(QString::fromStdString(lessons_[static_cast<std::size_t>(lesson_) + 1].title)));
  const QString view = QString::fromStdString(s.view);
  note_->setVisible(!viewNames().contains(view) && view != kTrainingPage);
  note_->setText(tr("This step shows the view “%1”, which this build of Attention Lab does not have; its "
                    "parameters are applied, the other views show them.")
                     .arg(view));
}

void LessonPanel::setFontScale(double scale) {
  fontScale_ = scale;
  QFont f = font();
  f.setPointSizeF(kBodyPoints * scale);
  text_->setFont(f);
  // The step heading stays a size above the text at every scale (it once kept the window's 9 pt
  // while the text grew to 20 pt in presentation mode).
  QFont heading = f;
  heading.setBold(true);
  heading.setPointSizeF(kBodyPoints * 1.3 * scale);
  title_->setFont(heading);
}

}  // namespace attnlab::ui
