#pragma once
// The token the mouse is on, shared by every view and the sentence editor: hover a token anywhere
// (an axis label or cell of a heatmap, a head-view column, a word in the editor) and every view
// highlights it. Hover is transient, so it lives here; pins are parameters (selection.pinned), so
// they are undoable, saved in sessions and drawn in exported figures.
#include <QObject>
#include <QPointer>
#include <QVector>

#include "ui/views/common/compute_result.h"

class QPlainTextEdit;
class QWidget;

namespace attnlab::ui {

/// Issue 31: p's pins carried through the edit of the text from `oldSentence` to p.sentence (pinsAfterEdit), the
/// model of `shown` (the result on screen) tokenizing both texts. Returns the texts of the pinned tokens the edit
/// changed or deleted (their pins are gone). Nothing changes without pins, or when `shown` ran another model.
std::vector<std::string> carryPinsThroughEdit(Params& p, const std::string& oldSentence, const ResultPtr& shown);
/// Forgets the tokenization carryPinsThroughEdit keeps of the last text it saw (bench: the cost without it).
void forgetPinTokenization();

class TokenSelection : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  /// The hovered token's index in the current sentence, −1 for none.
  int hovered() const { return hovered_; }
  void setHovered(int token);
  /// Esc: drops the hover and any view's own focus, and asks (cleared) for the pins to be cleared.
  void clear();
  /// Esc in `window` calls clear(). A window shortcut: dialogs and popups keep their own Esc.
  void installEscape(QWidget* window);

 signals:
  void hoveredChanged(int token);
  void cleared();

 private:
  int hovered_ = -1;
};

/// The sentence editor's side of the selection: the token under the mouse becomes the hovered token,
/// and the hovered and pinned tokens' characters are coloured in the editor (extra selections).
class EditorTokenLink : public QObject {
  Q_OBJECT
 public:
  EditorTokenLink(QPlainTextEdit* editor, TokenSelection* selection);
  /// The tokens' UTF-16 spans and the pins of the result on screen.
  void setResult(const ResultPtr& result);
  /// The token whose characters hold UTF-16 position `pos` of the editor's text, or −1.
  int tokenAtPosition(int pos) const;
  /// The coloured spans as (start, length, token), for tests.
  struct Span {
    int start, length, token;
    bool pinned;
  };
  QVector<Span> highlighted() const { return highlighted_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refresh();
  QPointer<QPlainTextEdit> editor_;
  TokenSelection* selection_;
  ResultPtr result_;
  QVector<Span> highlighted_;
};

}  // namespace attnlab::ui
