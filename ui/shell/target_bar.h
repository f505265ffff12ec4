#pragma once
// The second text of an encoder–decoder (issue 33), under the source editor and shown only while one is loaded: the
// target editor (typed: teacher forcing, the views show how the model reads that translation), Translate (the greedy
// translation, computed on a worker thread with the KV cache), Next token (appends the greedy token after the target,
// read from the run's last logits row: no computation), Generate N on Next token's arrow (greedy or sampled with the
// Prediction chapter's temperature, top-k, top-p and the seed, on one cached decoding session: the encoder and the
// cross K/V once, one decoder step per token; each token is appended to the target as it is made, so every view
// follows it; Stop, the end of text, typing in either editor, undo, another model end it) and the stack the
// single-text views show. Every change goes to the window as a parameter edit, so undo, sessions and the live loop
// treat it like typing (a generation's tokens are edits of the target as the one-text Generate's are of the sentence:
// the undo history merges the edits of one second into one step). With heads switched off (the shown run's
// ablation) Translate and Generate N run the ablated full pass each step instead of the cache, so they write what
// pressing Next token repeatedly writes.
#include <QFutureWatcher>
#include <QToolButton>
#include <QWidget>
#include <memory>
#include <string>

#include "core/run/encdec_generate.h"
#include "core/run/encdec_run.h"
#include "core/session/prediction_settings.h"
#include "ui/views/common/compute_result.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnlab::ui {

class BackgroundJob;
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
  /// Stops a running generation and waits for its worker, which posts its tokens to this bar.
  ~TargetBar() override;

  SentenceEditor* editor() const { return target_; }
  QPushButton* translateButton() const { return translate_; }
  /// Clicked: one token; its arrow opens Generate N (stepsChoice, sampleChoice, seedChoice, generateButton).
  QToolButton* nextTokenButton() const { return next_; }
  QComboBox* stackChoice() const { return stack_; }
  QPushButton* generateButton() const { return generate_; }
  QPushButton* stopButton() const { return stop_; }
  QSpinBox* stepsChoice() const { return steps_; }
  QCheckBox* sampleChoice() const { return sample_; }
  QSpinBox* seedChoice() const { return seed_; }
  QLabel* note() const { return note_; }
  /// True while a translation runs on the worker.
  bool translating() const { return watcher_.isRunning(); }
  /// True while Generate N runs (until its last token has reached the window, or it was stopped).
  bool generating() const;
  /// Ends a running generation; the tokens appended so far stay.
  void stopGenerating();

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
  /// Generate N's count, greedy/sampled or seed edited (the session keeps them as the Prediction chapter's settings).
  void predictionEdited(const attnlab::PredictionSettings& settings);
  /// Translate, Next token or a generated token produced `target` for source text `source` (the window takes it when
  /// the source is still the one typed).
  void targetProduced(const std::string& source, const std::string& target);

 private:
  void translate();
  void nextToken();
  void translated();
  void generate();
  /// One token of the generation `run` on the GUI thread: appended to the target (an edit), or the end of text.
  void tokenMade(quint64 run, const GeneratedToken& token);
  void generated(const TargetGeneration& g);
  /// A generation ends when the parameters leave its texts: the source edited, the target typed over or undone past
  /// its start, another model folder; the note says which.
  void stopIfOvertaken(const Params& p);
  void emitPrediction();
  /// The button's text and tooltip, the seed's state: from the count and greedy/sampled chosen.
  void showGenerateChoice();
  /// True when the shown run switched heads off (Translate and Generate then run full passes, not the cache).
  bool ablated() const;
  /// The note just set stays while the runs are of `source` and `target` (or a prefix of it).
  void keepNoteFor(const std::string& source, const std::string& target);
  void setGeneratingLook(bool on);
  /// Shows `text` under the editor (hidden when empty).
  void setNote(const QString& text);
  /// Translate and Next token enabled for a model with an output head (a folder), else disabled with the reason.
  void showOutputHead(const EncDecRun* run);

  SentenceEditor* source_;
  SentenceEditor* target_;
  QPushButton* translate_;
  QToolButton* next_;
  QComboBox* stack_;
  QSpinBox* steps_;
  QPushButton* generate_;
  QPushButton* stop_;
  QCheckBox* sample_;
  QSpinBox* seed_;
  QLabel* note_;
  QString sourcePlaceholder_;
  bool rungSeven_ = false;          ///< the parameters name the built-in rung 7 (the bar shows before its first result)
  QString translateTip_, nextTip_;  ///< the buttons' own tooltips (rung 7's say why they are disabled)
  ResultPtr last_;                  ///< the last encoder–decoder result (Translate's model, Next token's logits)
  std::string translatingSource_;
  QFutureWatcher<TranslationJob> watcher_;
  PredictionSettings prediction_;  ///< the session's: Generate's count, sampling options and seed
  bool updating_ = false;          ///< setParams is filling the controls: no edit
  BackgroundJob* job_;
  quint64 run_ = 0;  ///< the generation whose tokens are taken; a stopped one's queued tokens are dropped
  /// The running generation: its model (and folder), texts, the target grown so far, the tokens asked and made, and
  /// a note on why fewer were asked than chosen.
  std::shared_ptr<const EncDecFolderModel> genModel_;
  std::string genModelDir_, genSource_, genBase_, genText_;
  int genSteps_ = 0, genMade_ = 0;
  QString genNote_;
  /// The source and target a generation's last note is about: it stays while the runs are of those texts.
  std::string noteSource_, noteTarget_;
  bool keepNote_ = false;
};

}  // namespace attnlab::ui
