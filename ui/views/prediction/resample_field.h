#pragma once
// The Prediction view's resample text (issue 31): with resample ablation, the ablated heads' outputs are their outputs
// in a run of this text, position by position (core/run/pipeline.h runs it through the same model). One line: a label,
// the text, and — when the last run refused it (empty, fewer tokens than the sentence) — the reason in red below.
// Shown only in resample mode; every edit leaves as `edited` (the view turns it into a parameter edit).
#include <QWidget>

class QLabel;
class QLineEdit;

namespace attnlab::ui {

class ResampleField : public QWidget {
  Q_OBJECT
 public:
  explicit ResampleField(QWidget* parent = nullptr);
  /// Shows `text` without emitting; the cursor stays where it is when the text is the one typed.
  void setText(const QString& text);
  QString text() const;
  /// The reason the last run with this text failed; empty hides it.
  void setProblem(const QString& problem);
  QString problem() const;
  QLineEdit* edit() const { return edit_; }

 signals:
  void edited(const QString& text);

 private:
  QLineEdit* edit_;
  QLabel* problem_;
};

}  // namespace attnlab::ui
