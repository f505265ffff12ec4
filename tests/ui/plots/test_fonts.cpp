// Chinese and emoji in the window and its figures: every character of "我爱自然语言处理 🙂" is in one
// of the families the application font lists, and laying the string out with that font uses no
// missing-glyph box (glyph 0) and draws ink for every character.
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QRawFont>
#include <QTextLayout>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/plots/fonts.h"

using namespace attnlab::ui;

namespace {

const QString kSentence = QString::fromUtf8("我爱自然语言处理 🙂");

/// `text` drawn alone with `font`, black on white.
QImage drawn(const QString& text, const QFont& font) {
  QImage img(200, 100, QImage::Format_ARGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setFont(font);
  p.setPen(Qt::black);
  p.drawText(img.rect(), Qt::AlignCenter, text);
  p.end();
  return img;
}

int inkOf(const QImage& img) {
  int ink = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) ink += img.pixel(x, y) != qRgb(255, 255, 255);
  return ink;
}

}  // namespace

class TestFonts : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { useTextFontFamilies(); }

  void everyCharacterIsInALIstedFamily() {
    const QStringList families = textFontFamilies();
    QCOMPARE(QApplication::font().families(), families);
    for (const uint cp : kSentence.toUcs4()) {
      bool found = false;
      for (const QString& f : families) {
        const QRawFont raw = QRawFont::fromFont(QFont(f));
        found = found || (raw.familyName() == f && raw.supportsCharacter(cp));
      }
      QVERIFY2(found, qPrintable(QString("U+%1 is in none of %2").arg(cp, 4, 16).arg(families.join(", "))));
    }
  }

  void theSentenceLaysOutWithoutMissingGlyphs() {
    QTextLayout layout(kSentence, QApplication::font());
    layout.beginLayout();
    layout.createLine();
    layout.endLayout();
    int glyphs = 0;
    for (const QGlyphRun& run : layout.glyphRuns()) {
      for (const quint32 g : run.glyphIndexes()) {
        QVERIFY2(g != 0, qPrintable("a missing glyph in " + run.rawFont().familyName()));
        ++glyphs;
      }
    }
    QCOMPARE(glyphs, int(kSentence.toUcs4().size()));
  }

  void everyCharacterDrawsInkThatIsNotABox() {
    const QFont font = QApplication::font();
    const QImage box = drawn(QString(QChar(0x0378)), font);  // unassigned: the missing-glyph box
    for (const uint cp : kSentence.toUcs4()) {
      if (cp == ' ') continue;
      const QString c = QString::fromUcs4(reinterpret_cast<const char32_t*>(&cp), 1);
      const QImage img = drawn(c, font);
      QVERIFY2(inkOf(img) > 20, qPrintable(c));
      QVERIFY2(img != box, qPrintable(c + " draws as a box"));
    }
  }
};

ATTNLAB_TEST_MAIN(TestFonts)
#include "test_fonts.moc"
