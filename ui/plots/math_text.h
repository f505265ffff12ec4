#pragma once
// Sub- and superscripts drawn as such in plain-text places (QCustomPlot titles, axis labels and legends do no
// HTML): the Unicode characters that exist for them. "X" + subscript("3") is "X₃", "σ" + subscript("max") "σₘₐₓ",
// "d" + superscript("-1/4") … (no superscript slash: such a fragment is better written otherwise, e.g. ∜d).
// Rich-text places (QLabel, tooltips) write <sub>…</sub> instead, which has every letter.
#include <QString>

namespace attnlab::ui {

/// `text` in subscript characters; an empty string when some character has none (capitals, b, c, d, …), so the
/// caller can say it another way instead of half-converting.
QString subscript(const QString& text);
/// The same in superscript characters (digits, + − = ( ), and most small letters; q has none).
QString superscript(const QString& text);

}  // namespace attnlab::ui
