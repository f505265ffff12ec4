#pragma once
// Plot titles that fit their figure: QCPTextElement draws one line per '\n' and never wraps, so a long title
// centred over a narrow figure (a paper column, a slide's panel) ran out of it on both sides and widened its
// layout column until a legend beside it was pushed out.
#include <QFont>
#include <QString>

namespace attnlab::ui {

/// `title` broken into lines no wider than `width` pixels in `font`: at its " · " separators first, then at the
/// last space that fits; a single word wider than `width` stays whole. Existing line breaks are kept.
QString wrapTitle(const QString& title, const QFont& font, int width);

}  // namespace attnlab::ui
