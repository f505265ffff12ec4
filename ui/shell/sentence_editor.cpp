#include "ui/shell/sentence_editor.h"

#include <QFileInfo>
#include <QScreen>
#include <QStringDecoder>
#include <QTextBlock>
#include <algorithm>

#include "core/base/json_file.h"

namespace attnlab::ui {

SentenceEditor::SentenceEditor(QWidget* parent) : QPlainTextEdit(parent) {
  setTabChangesFocus(true);   // Tab leaves the editor, as it left the line edit
  setUndoRedoEnabled(false);  // Ctrl+Z goes to the program's history (main_window.cpp)
  setLineWrapMode(WidgetWidth);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  connect(this, &QPlainTextEdit::textChanged, this, [this] {
    if (!settingText_) emit textEdited(text());
    fitHeight();
  });
  fitHeight();
}

QString SentenceEditor::text() const {
  QString raw = document()->toRawText();
  raw.replace(QChar::ParagraphSeparator, QChar('\n'));
  return raw;
}

void SentenceEditor::setText(const QString& text) {
  settingText_ = true;
  setPlainText(text);
  settingText_ = false;
  end(false);
}

void SentenceEditor::setCursorPosition(int pos) {
  QTextCursor c = textCursor();
  c.setPosition(std::clamp(pos, 0, document()->characterCount() - 1));
  setTextCursor(c);
}

void SentenceEditor::end(bool mark) {
  QTextCursor c = textCursor();
  c.movePosition(QTextCursor::End, mark ? QTextCursor::KeepAnchor : QTextCursor::MoveAnchor);
  setTextCursor(c);
}

void SentenceEditor::setSelection(int start, int length) {
  QTextCursor c = textCursor();
  c.setPosition(start);
  c.setPosition(start + length, QTextCursor::KeepAnchor);
  setTextCursor(c);
}

void SentenceEditor::fitHeight() {
  // Lines of the text (wrapped lines counted for a short text; a long one is at the maximum anyway: counting its
  // wrapped lines would lay out the whole page on every keystroke).
  // At most a sixth of the screen's height: presentation mode's large font on a 720-line projector gives three lines,
  // so the editor, a lesson and the view still share the screen (five made the window 759 px high).
  const int maxLines =
      screen() ? std::clamp(screen()->geometry().height() / 6 / std::max(1, fontMetrics().lineSpacing()), 2, kMaxLines)
               : kMaxLines;
  int lines = document()->blockCount();
  if (document()->characterCount() >= 4000)
    lines = maxLines;  // 4,000 characters wrap past five lines at any width the window allows
  else if (lines < maxLines)
    for (QTextBlock b = document()->begin(); b.isValid(); b = b.next())
      if (b.layout()) lines += std::max(0, b.layout()->lineCount() - 1);
  lines = std::clamp(lines, 1, maxLines);
  const int height =
      fontMetrics().lineSpacing() * lines + 2 * static_cast<int>(document()->documentMargin()) + 2 * frameWidth() + 2;
  lines_ = lines;
  if (height != this->height()) setFixedHeight(height);
}

void SentenceEditor::changeEvent(QEvent* event) {
  QPlainTextEdit::changeEvent(event);
  if (event->type() == QEvent::FontChange) fitHeight();  // presentation mode's large font
}

void SentenceEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  fitHeight();  // a narrower window wraps a sentence onto more lines
}

QString SentenceEditor::readTextFile(const QString& path, QString* error, std::size_t maxBytes) {
  const QString name = QFileInfo(path).fileName();
  std::string bytes;
  try {
    bytes = attnlab::readTextFile(path.toStdString(), maxBytes);
  } catch (const std::exception& e) {  // missing, a folder, /dev/zero, too large: the message names it
    *error = QString::fromUtf8(e.what());
    return {};
  }
  if (const auto nul = bytes.find('\0'); nul != std::string::npos) {
    *error = tr("%1 is not a text file: it holds a NUL byte at byte %2 (a binary file?)").arg(name).arg(nul);
    return {};
  }
  QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
  QString text = utf8.decode(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())));
  if (utf8.hasError()) {
    // The first byte that is not UTF-8, for the user to find it.
    std::size_t at = bytes.size();
    for (std::size_t i = 0; i < bytes.size();) {
      const auto c = static_cast<unsigned char>(bytes[i]);
      const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
      bool ok = n > 0 && i + static_cast<std::size_t>(n) <= bytes.size();
      for (int k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(bytes[i + k]) >> 6) == 2;
      if (!ok) {
        at = i;
        break;
      }
      i += static_cast<std::size_t>(n);
    }
    *error = at < bytes.size() ? tr("%1 is not UTF-8 text: byte %2 (0x%3) starts no UTF-8 character. Save it as "
                                    "UTF-8 and open it again.")
                                     .arg(name)
                                     .arg(at)
                                     .arg(static_cast<unsigned char>(bytes[at]), 2, 16, QChar('0'))
                               : tr("%1 is not UTF-8 text (an encoded surrogate or an overlong form). Save it as UTF-8 "
                                    "and open it again.")
                                     .arg(name);
    return {};
  }
  if (text.startsWith(QChar(0xFEFF))) text.remove(0, 1);  // a byte-order mark is no part of the text
  if (text.trimmed().isEmpty()) {
    *error = tr("%1 holds no text").arg(name);
    return {};
  }
  text.replace("\r\n", "\n");
  text.replace('\r', '\n');  // an old Mac file's line breaks
  error->clear();
  return text;
}

}  // namespace attnlab::ui
