#include "ui/plots/plot_titles.h"

#include <QFontMetrics>
#include <QStringList>

namespace attnlab::ui {
namespace {

/// Greedy: pieces joined by `glue` while the line fits; each line then goes to `overflow` if still too wide.
QStringList fill(const QStringList& pieces, const QString& glue, const QFontMetrics& fm, int width) {
  QStringList lines;
  QString current;
  for (const QString& piece : pieces) {
    const QString joined = current.isEmpty() ? piece : current + glue + piece;
    if (!current.isEmpty() && fm.horizontalAdvance(joined) > width) {
      lines << current;
      current = piece;
    } else {
      current = joined;
    }
  }
  if (!current.isEmpty()) lines << current;
  return lines;
}

}  // namespace

QString wrapTitle(const QString& title, const QFont& font, int width) {
  const QFontMetrics fm(font);
  QStringList out;
  for (const QString& line : title.split('\n')) {
    for (const QString& part : fill(line.split(QStringLiteral(" · ")), QStringLiteral(" · "), fm, width)) {
      if (fm.horizontalAdvance(part) <= width)
        out << part;
      else
        out << fill(part.split(' '), QStringLiteral(" "), fm, width);
    }
  }
  return out.join('\n');
}

}  // namespace attnlab::ui
