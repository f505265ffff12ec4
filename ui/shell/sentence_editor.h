#pragma once
// The sentence editor (issue 31): a page keeps its line breaks, as --sentence-file does. A QPlainTextEdit that grows
// from one line to a few as the text does (then scrolls), Enter inserts a newline, Tab moves the focus on. It speaks
// QLineEdit's words where the window and its tests use them (text, setText with the cursor at the end, textEdited for
// the user's edits only, cursor positions), so the rest of the program is unchanged by the switch.
#include <QPlainTextEdit>
#include <QString>
#include <string>

namespace attnlab::ui {

class SentenceEditor : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit SentenceEditor(QWidget* parent = nullptr);

  /// The text exactly as typed: toPlainText() turns no-break spaces into spaces (and U+2028 into line breaks), so a
  /// pasted or opened text with them no longer equalled the sentence the program ran (hover and the tokens' links
  /// broke, and the next keystroke changed the tokens unasked). The document's raw text with its paragraph separators
  /// back as "\n".
  QString text() const;
  /// Replaces the text (not a user edit: no textEdited), the cursor at its end.
  void setText(const QString& text);
  int cursorPosition() const { return textCursor().position(); }
  void setCursorPosition(int pos);
  /// Moves the cursor to the end; `mark` extends the selection.
  void end(bool mark);
  void setSelection(int start, int length);
  /// The lines shown without scrolling: as many as the text has, from 1 to kMaxLines or what a sixth of the screen's
  /// height holds (at least 2).
  int visibleLines() const { return lines_; }
  static constexpr int kMaxLines = 5;

  /// A text file for the editor (File ▸ Open text…): its UTF-8 text, or an error naming the file and the problem
  /// (not a regular file, larger than maxBytes, a NUL byte, invalid UTF-8 with its byte offset, no text).
  static QString readTextFile(const QString& path, QString* error, std::size_t maxBytes = kMaxTextFileBytes);
  static constexpr std::size_t kMaxTextFileBytes = std::size_t(16) << 20;

 signals:
  /// The user changed the text (typing, pasting, deleting); not emitted by setText.
  void textEdited(const QString& text);

 protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void fitHeight();
  bool settingText_ = false;
  int lines_ = 1;
};

}  // namespace attnlab::ui
