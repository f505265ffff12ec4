#pragma once
// The fonts the window and its figures draw text with. DejaVu Sans (the platform's sans serif) has no
// CJK and few emoji, and Qt asks fontconfig for a substitute per missing glyph only when one is
// installed at all: the set-up installs Noto Sans CJK (fonts-noto-cjk) and emoji fonts, and the
// application font lists them after the default family, so "我爱自然语言处理 🙂" never draws as boxes and
// every machine picks the same fonts.
#include <QStringList>

namespace attnlab::ui {

/// The default family, then those of the fallbacks that are installed: Noto Sans CJK SC, Symbola
/// (outline emoji: PDF and SVG embed them; colour-bitmap emoji would be dropped or rasterised) and
/// Noto Color Emoji (what Symbola lacks).
QStringList textFontFamilies();

/// Gives the application font (which every widget and figure inherits) the families above.
/// Call after the QApplication is made.
void useTextFontFamilies();

}  // namespace attnlab::ui
