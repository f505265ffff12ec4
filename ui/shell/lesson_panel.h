#pragma once
// The lesson panel: pick a lesson (shipped or from a file), read the step's explanation, go to the
// next or previous step (buttons, PageDown/PageUp, Alt+→/Alt+←). Each step asks the window to apply
// its parameters and show its view; a view this build does not have gets a note, not a crash. The last
// step offers the next lesson, and Next (a presentation clicker's Page Down) goes on into it; Previous on a
// first step goes back to the previous lesson's last step. Close ends the lesson (the window then restores
// the user's parameters).
#include <QWidget>
#include <vector>

#include "core/session/lesson.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace attnlab::ui {

class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonPanel(QWidget* parent = nullptr);

  /// Loads a user's lesson file and selects it; returns an error message (also shown) or "".
  QString openFile(const QString& path, bool showErrors = true);
  void selectLesson(int index);
  /// Goes to step `index` of the current lesson and emits stepRequested.
  void goToStep(int index);
  /// The next step; on a lesson's last step, the next lesson's first step.
  void next();
  /// The previous step; on a lesson's first step, the previous lesson's last step.
  void previous();
  int lessonCount() const { return static_cast<int>(lessons_.size()); }
  int lessonIndex() const { return lesson_; }
  int stepIndex() const { return step_; }
  const Lesson* currentLesson() const;
  QStringList lessonTitles() const;
  /// Asks for a lesson file and loads it.
  void openDialog();
  /// The note under the text (e.g. a view missing from this build); empty when none.
  QString note() const;
  void setFontScale(double scale);

 signals:
  void stepRequested(const attnlab::Params& params, const QString& view);
  /// The Close button: end the lesson.
  void closeRequested();

 private:
  void showStep();

  std::vector<Lesson> lessons_;
  int lesson_ = -1, step_ = 0;
  QComboBox* chooser_;
  QLabel *title_, *counter_, *note_;
  QTextBrowser* text_;
  QPushButton *prev_, *next_, *nextLesson_;
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
