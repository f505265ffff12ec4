#pragma once
// The strip above the views when the model refused the text as longer than its positions (issue 31): "The text has
// 2,263 tokens; gpt2 takes 48 positions" and a button "Keep the last 48 tokens". The text stays whole until the
// button is pressed; pressing it asks for an edit of the sentence (the window's one undoable path). With an
// encoder–decoder the strip names the text too long, source or target, and cuts that one.
#include <QWidget>
#include <string>

#include "ui/views/common/compute_result.h"

class QLabel;
class QPushButton;

namespace attnlab::ui {

class TooLongBar : public QWidget {
  Q_OBJECT
 public:
  explicit TooLongBar(QWidget* parent = nullptr);
  /// Every result the controller emits: shown for a text too long, hidden for any other.
  void setResult(const ResultPtr& result);
  QPushButton* keepButton() const { return keep_; }

 signals:
  /// `tail` (the end of the refused text that fits the model) is to replace `refused` in the editor: the sentence's,
  /// or — `target` — an encoder–decoder's target editor.
  void keepRequested(const std::string& refused, const std::string& tail, bool target);

 private:
  QLabel* message_;
  QPushButton* keep_;
  std::string refused_;
  std::string tail_;
  bool target_ = false;
};

}  // namespace attnlab::ui
