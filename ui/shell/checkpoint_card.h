#pragma once
// The card the parameter panel shows for an opened checkpoint instead of the built-in model's settings (issue 31):
// one row per fact of core/run/model_card.h — family, layers, heads and kv heads, widths, vocabulary, parameters,
// attention windows, positions, dtype, the files read, the weights' bytes and the program's resident memory
// (/proc/self/statm, re-read on every result). Each value label has an object name ("cardHeads", …) for tests.
#include <QGroupBox>
#include <map>

#include "core/run/model_card.h"

class QFormLayout;
class QLabel;

namespace attnlab::ui {

class CheckpointCard : public QGroupBox {
  Q_OBJECT
 public:
  explicit CheckpointCard(QWidget* parent = nullptr);
  /// Shows `card` under the checkpoint's `name`.
  void showCard(const ModelCard& card, const QString& name);
  /// "A checkpoint is loading": before its first result.
  void showLoading();
  /// No card to show: `why` in place of the name ("No checkpoint opened: the views show the built-in model."), rows
  /// empty.
  void showNoCard(const QString& why);
  /// A red line above the rows ("Could not open “x”: config.json: malformed JSON"); empty hides it. Kept through
  /// showCard (the card below is then the model still in force), cleared by showLoading.
  void setFailure(const QString& text);
  QString failure() const;
  /// Re-reads the resident set: called on every result, so it follows the traces the program keeps.
  void refreshMemory();
  /// The width the card is laid out for: every label and a value of about 24 characters (longer values wrap).
  int preferredWidth() const;

 private:
  QLabel* row(const char* objectName, const QString& label, const QString& tip);
  /// Family, layers, heads, widths and vocabulary of an encoder–decoder: both stacks ("encoder / decoder" where they
  /// differ), the source and target vocabularies when they are two.
  void showEncDecSizes(const ModelCard& c);

  QFormLayout* form_;
  QLabel* name_;
  QLabel* failure_;
  std::map<QString, QLabel*> values_;  ///< object name → value label
};

}  // namespace attnlab::ui
