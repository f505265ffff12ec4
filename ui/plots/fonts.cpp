#include "ui/plots/fonts.h"

#include <QApplication>
#include <QFont>
#include <QFontDatabase>

namespace attnlab::ui {

QStringList textFontFamilies() {
  static const char* const kFallbacks[] = {"Noto Sans CJK SC", "Symbola", "Noto Color Emoji"};
  QStringList families{QFontDatabase::systemFont(QFontDatabase::GeneralFont).family()};
  for (const char* f : kFallbacks)
    if (QFontDatabase::hasFamily(f) && !families.contains(f)) families << f;
  return families;
}

void useTextFontFamilies() {
  QFont f = QApplication::font();
  f.setFamilies(textFontFamilies());
  QApplication::setFont(f);
}

}  // namespace attnlab::ui
