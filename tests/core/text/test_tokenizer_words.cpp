#include <QtTest>

#include "core/text/word_tokenizer.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestTokenizerWords : public QObject {
  Q_OBJECT
 private slots:
  void splitsWordsAndPunctuation_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("sentence") << "the cat walks on the street"
                              << QStringList{"the", "cat", "walks", "on", "the", "street"};
    QTest::newRow("punctuation") << "Hello, world!" << QStringList{"hello", ",", "world", "!"};
    QTest::newRow("apostrophe") << "don't stop" << QStringList{"don't", "stop"};
    QTest::newRow("hyphen word") << "state-of-the-art" << QStringList{"state-of-the-art"};
    QTest::newRow("dangling hyphen") << "well- done" << QStringList{"well", "-", "done"};
    QTest::newRow("quotes") << "'hi'" << QStringList{"'", "hi", "'"};
    QTest::newRow("chinese") << "我爱北京" << QStringList{"我", "爱", "北", "京"};
    QTest::newRow("mixed cjk") << "AI是未来" << QStringList{"ai", "是", "未", "来"};
    QTest::newRow("emoji") << "i ❤️ 🐱s" << QStringList{"i", "❤", "🐱", "s"};
    QTest::newRow("accents") << "ÉCOLE Ñandú" << QStringList{"école", "ñandú"};
    QTest::newRow("empty") << "" << QStringList{};
    QTest::newRow("spaces only") << "   \t\n " << QStringList{};
    // A page's line breaks and tabs separate words (they were dropped as control characters: "streeta").
    QTest::newRow("lines") << "the street\na second\r\nline\tend"
                           << QStringList{"the", "street", "a", "second", "line", "end"};
    QTest::newRow("numbers") << "3.14 is pi" << QStringList{"3", ".", "14", "is", "pi"};
  }
  void splitsWordsAndPunctuation() {
    QFETCH(QString, input);
    QFETCH(QStringList, expected);
    const auto tokens = tokenizeWords(input.toStdString());
    QStringList got;
    for (const auto& t : tokens) got << QString::fromStdString(t.text);
    QCOMPARE(got, expected);
  }

  void keepsUtf16OffsetsForHighlighting() {
    const QString text = QStringLiteral("A 🐱 sat, 猫!");
    const auto tokens = tokenizeWords(text.toStdString(), {false});
    QCOMPARE(int(tokens.size()), 6);
    for (const auto& t : tokens) {
      const QString span = text.mid(t.u16Begin, t.u16End - t.u16Begin);
      QCOMPARE(span, QString::fromStdString(t.text));
      const std::string bytes = text.toStdString().substr(t.byteBegin, t.byteEnd - t.byteBegin);
      QCOMPARE(QString::fromStdString(bytes), QString::fromStdString(t.text));
    }
  }

  void invalidUtf8NeverCrashes() {
    // Truncated sequences, lone continuation bytes, overlong forms, surrogates.
    const std::string junk = std::string("ok \xC3 \x80\x80 \xE2\x82 \xF0\x9F\x98 \xC0\xAF \xED\xA0\x80 end");
    const auto tokens = tokenizeWords(junk);
    QVERIFY(!tokens.empty());
    QCOMPARE(QString::fromStdString(tokens.front().text), QString("ok"));
    QCOMPARE(QString::fromStdString(tokens.back().text), QString("end"));
    for (const auto& t : tokens) QVERIFY(t.byteEnd > t.byteBegin);
  }

  void allByteValuesAreSafe() {
    std::string all;
    for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
    const auto tokens = tokenizeWords(all + all);
    QVERIFY(!tokens.empty());
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTokenizerWords)
#include "test_tokenizer_words.moc"
