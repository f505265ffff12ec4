#pragma once
// The second text of an encoder–decoder (issue 33), under the source editor and shown only while one is loaded: the
// target editor (typed: teacher forcing, the views show how the model reads that translation), Translate (the greedy
// translation, computed on a worker thread with the KV cache), Next token (appends the greedy token after the target,
// read from the run's last logits row: no computation) and the stack the single-text views show (encoder / decoder).
// Every change goes to the window as a parameter edit, so undo, sessions and the live loop treat it like typing.
#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <string>

#include "core/run/encdec_run.h"
#include "ui/views/common/compute_result.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace attnlab::ui {

class SentenceEditor;

/// A translation computed on the worker, or why it could not be made.
struct TranslationJob {
  Translation translation;
  QString error;
};

class TargetBar : public QWidget {
  Q_OBJECT
 public:
  /// `source` is the window's sentence editor: its placeholder names it the source while an encoder–decoder is open.
  explicit TargetBar(SentenceEditor* source, QWidget* parent = nullptr);

  SentenceEditor* editor() const { return target_; }
  QPushButton* translateButton() const { return translate_; }
  QPushButton* nextTokenButton() const { return next_; }
  QComboBox* stackChoice() const { return stack_; }
  QLabel* note() const { return note_; }
  /// True while a translation runs on the worker.
  bool translating() const { return watcher_.isRunning(); }

  /// Every result the controller emits: shown for an encoder–decoder's, hidden for another model's; a failed run
  /// keeps the bar as it was (the message is in the status bar).
  void setResult(const ResultPtr& result);
  /// The parameters of this moment (undo, sessions, lessons): target text and stack choice.
  void setParams(const Params& p);

 signals:
  /// The user typed in the target editor.
  void targetEdited(const QString& text);
  /// The stack chosen ("encoder" / "decoder").
  void stackChosen(const std::string& stack);
  /// Translate or Next token produced `target` for source text `source` (the window takes it when the source is
  /// still the one typed).
  void targetProduced(const std::string& source, const std::string& target);

 private:
  void translate();
  void nextToken();
  void translated();
  /// Shows `text` under the editor (hidden when empty).
  void setNote(const QString& text);

  SentenceEditor* source_;
  SentenceEditor* target_;
  QPushButton* translate_;
  QPushButton* next_;
  QComboBox* stack_;
  QLabel* note_;
  QString sourcePlaceholder_;
  ResultPtr last_;  ///< the last encoder–decoder result (Translate's model, Next token's logits)
  std::string translatingSource_;
  QFutureWatcher<TranslationJob> watcher_;
};

}  // namespace attnlab::ui
