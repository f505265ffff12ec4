#pragma once
// The inputs of the Activation patching view: the clean and corrupted texts, the target and versus
// tokens, which maps to make (heads and positions, heads only, positions only, head × position), a Run and a
// Cancel button, the progress of the running map with the time left, a status line (the token counts, or what is
// wrong with the inputs, in red) and the cost hint. The view checks the inputs against the
// model and turns Run (or Enter in an editor) into a parameter edit; the controls only show and report.
#include <QElapsedTimer>
#include <QWidget>
#include <string>

#include "core/predict/patching.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace attnlab::ui {

/// What a patching map is computed from: the four fields of PredictionSettings (clean, corrupt,
/// patchTarget, patchVersus) as typed.
struct PatchingInputs {
  std::string clean, corrupt, target, versus;
  bool operator==(const PatchingInputs& o) const {
    return clean == o.clean && corrupt == o.corrupt && target == o.target && versus == o.versus;
  }
  bool operator!=(const PatchingInputs& o) const { return !(*this == o); }
};

class PatchingControls : public QWidget {
  Q_OBJECT
 public:
  explicit PatchingControls(QWidget* parent = nullptr);
  /// Shows `in` in the editors without emitting anything.
  void setInputs(const PatchingInputs& in);
  /// What the editors hold now.
  PatchingInputs inputs() const;
  /// The status line: token counts, or (error) the reason the inputs cannot be patched, in red.
  void setStatus(const QString& text, bool error);
  QString status() const;
  bool statusIsError() const { return error_; }
  void setHint(const QString& text);
  /// A map is being computed: the progress bar and Cancel are shown.
  void setBusy(bool busy);
  /// The bar, and beside it "37 % · about 1 min 20 s left" once a tenth of a second has passed (progress is
  /// reported by cost, so the time left is elapsed · (1 − f) / f).
  void setProgress(double fraction);
  void setFontScale(double scale);
  /// The maps chosen (default: heads and positions).
  PatchMap map() const;
  void setMap(PatchMap map);
  QString progressText() const;

  QLineEdit* cleanEdit() const { return clean_; }
  QLineEdit* corruptEdit() const { return corrupt_; }
  QLineEdit* targetEdit() const { return target_; }
  QLineEdit* versusEdit() const { return versus_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* cancelButton() const { return cancel_; }
  QProgressBar* progressBar() const { return progress_; }
  QComboBox* mapBox() const { return map_; }

  /// "about 1 min 20 s left" for `seconds`.
  static QString timeLeft(double seconds);

 signals:
  /// Run pressed, or Enter in one of the editors.
  void runRequested();
  void cancelRequested();
  /// The user typed in an editor: the view re-checks the counts.
  void inputsTyped();
  /// The user chose other maps.
  void mapChanged();

 private:
  QLineEdit *clean_, *corrupt_, *target_, *versus_;
  QPushButton *run_, *cancel_;
  QProgressBar* progress_;
  QComboBox* map_;
  QLabel *status_, *hint_, *progressText_;
  QElapsedTimer started_;
  bool error_ = false;
};

}  // namespace attnlab::ui
