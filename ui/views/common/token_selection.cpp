#include "ui/views/common/token_selection.h"

#include <QAction>
#include <QCoreApplication>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QTextCharFormat>
#include <QTextDocument>
#include <QTextEdit>
#include <algorithm>

#include "core/session/params_json.h"
#include "core/session/token_pins.h"

namespace attnlab::ui {

namespace {

/// The editor's text as typed (SentenceEditor::text): toPlainText() turns no-break spaces into spaces, and the text
/// then no longer equals the sentence the result was computed for.
QString typedText(const QPlainTextEdit* editor) {
  QString raw = editor->document()->toRawText();
  raw.replace(QChar::ParagraphSeparator, QChar('\n'));
  return raw;
}

/// The last text carryPinsThroughEdit tokenized, with its model and cut: while typing outruns the runs, the next
/// keystroke's old text is this keystroke's new one, so each key tokenizes the text once instead of twice. GUI thread.
struct LastTokenized {
  std::weak_ptr<const Model> model;
  int keepLastTokens = -1;
  std::string text;
  std::vector<Token> tokens;
};
LastTokenized& lastTokenized() {
  static LastTokenized last;
  return last;
}

}  // namespace

void forgetPinTokenization() { lastTokenized() = {}; }

std::vector<std::string> carryPinsThroughEdit(Params& p, const std::string& oldSentence, const ResultPtr& shown) {
  if (p.selection.pinned.empty() || p.sentence == oldSentence || !shown || !shown->ok()) return {};
  const Params& s = shown->params;
  if (s.modelDir != p.modelDir || s.lowercase != p.lowercase || toJson(s.model) != toJson(p.model)) return {};
  const Model& model = *shown->run->model;
  // The tokens the views index: the run's, after keeping the last tokens of a long text.
  const auto tokens = [&](const std::string& text) {
    LastTokenized& last = lastTokenized();
    if (last.text == text && last.keepLastTokens == p.keepLastTokens && last.model.lock() == shown->run->model)
      return last.tokens;
    std::vector<Token> made =
        keepLastTokens(model.tokenize(text), p.keepLastTokens, model.info().maxTokens, model).tokens;
    last = {shown->run->model, p.keepLastTokens, text, made};
    return made;
  };
  try {
    const bool same = s.sentence == oldSentence && s.keepLastTokens == p.keepLastTokens;
    const std::vector<Token> before = same ? shown->run->text.tokens : tokens(oldSentence);
    PinsAfterEdit carried = pinsAfterEdit(p.selection.pinned, oldSentence, before, p.sentence, tokens(p.sentence));
    p.selection.pinned = std::move(carried.pins);
    return std::move(carried.dropped);
  } catch (const std::exception&) {  // a text the model refuses: the run says why, the pins stay as they are
    return {};
  }
}

void TokenSelection::setHovered(int token) {
  token = std::max(-1, token);
  if (token == hovered_) return;
  hovered_ = token;
  emit hoveredChanged(token);
}

void TokenSelection::clear() {
  setHovered(-1);
  emit cleared();
}

void TokenSelection::installEscape(QWidget* window) {
  auto* esc = new QAction(tr("Clear pinned tokens"), window);
  esc->setShortcut(QKeySequence(Qt::Key_Escape));
  esc->setShortcutContext(Qt::WindowShortcut);
  connect(esc, &QAction::triggered, this, &TokenSelection::clear);
  window->addAction(esc);
}

EditorTokenLink::EditorTokenLink(QPlainTextEdit* editor, TokenSelection* selection)
    : QObject(editor), editor_(editor), selection_(selection) {
  editor->viewport()->setMouseTracking(true);
  editor->viewport()->installEventFilter(this);
  connect(selection, &TokenSelection::hoveredChanged, this, &EditorTokenLink::refresh);
  // Typing moves the characters: the spans come back with the next result.
  connect(editor, &QPlainTextEdit::textChanged, this, &EditorTokenLink::refresh);
}

void EditorTokenLink::setResult(const ResultPtr& result) {
  result_ = result;
  refresh();
}

int EditorTokenLink::tokenAtPosition(int pos) const {
  if (!result_ || !result_->ok() || typedText(editor_).toStdString() != result_->params.sentence) return -1;
  const std::vector<Token>& tokens = result_->run->text.tokens;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].u16Begin <= pos && pos < tokens[i].u16End) return static_cast<int>(i);
  return -1;
}

bool EditorTokenLink::eventFilter(QObject* watched, QEvent* event) {
  if (editor_ && watched == editor_->viewport() && event->type() == QEvent::MouseMove) {
    const auto* e = static_cast<QMouseEvent*>(event);
    // cursorForPosition gives the nearest gap between characters: the character is the one whose
    // left half holds the mouse, so look half a character to the left as well.
    const int pos = editor_->cursorForPosition(e->position().toPoint()).position();
    const int left =
        editor_->cursorForPosition(e->position().toPoint() - QPoint(editor_->fontMetrics().averageCharWidth() / 2, 0))
            .position();
    const int t = tokenAtPosition(std::min(pos, left));
    selection_->setHovered(t >= 0 ? t : tokenAtPosition(pos));
  } else if (editor_ && watched == editor_->viewport() && event->type() == QEvent::Leave) {
    selection_->setHovered(-1);
  }
  return false;
}

void EditorTokenLink::refresh() {
  if (!editor_) return;
  highlighted_.clear();
  if (result_ && result_->ok() && typedText(editor_).toStdString() == result_->params.sentence) {
    const std::vector<Token>& tokens = result_->run->text.tokens;
    const int n = static_cast<int>(tokens.size());
    const std::vector<int> pins = pinsWithin(result_->params.selection.pinned, n);
    std::vector<int> marks = pins;
    const int hovered = selection_->hovered();
    if (hovered >= 0 && hovered < n && std::find(pins.begin(), pins.end(), hovered) == pins.end())
      marks.push_back(hovered);
    for (int t : marks) {
      const Token& tok = tokens[static_cast<std::size_t>(t)];
      const bool pinned = std::find(pins.begin(), pins.end(), t) != pins.end();
      if (tok.u16End > tok.u16Begin)  // special tokens ([CLS]) have no characters
        highlighted_.push_back({tok.u16Begin, tok.u16End - tok.u16Begin, t, pinned});
    }
  }
  // Extra selections colour characters without touching the text or its undo.
  QList<QTextEdit::ExtraSelection> marks;
  for (const Span& s : highlighted_) {
    QTextEdit::ExtraSelection mark;
    mark.format.setBackground(QColor(0xE6, 0x55, 0x0D, s.pinned ? 110 : 50));
    if (s.pinned) mark.format.setFontUnderline(true);
    mark.cursor = QTextCursor(editor_->document());
    mark.cursor.setPosition(s.start);
    mark.cursor.setPosition(s.start + s.length, QTextCursor::KeepAnchor);
    marks << mark;
  }
  editor_->setExtraSelections(marks);
}

}  // namespace attnlab::ui
