// BERT WordPiece against the transformers.js bert-base-uncased vectors, from tokenizer.json and from
// vocab.txt + tokenizer_config.json; the normaliser's pieces; offsets; bad files.
#include <QtTest>

#include <memory>

#include "core/base/errors.h"
#include "core/text/bert_normalizer.h"
#include "core/text/tokenizer_loader.h"
#include "core/text/wordpiece_tokenizer.h"
#include "tests/core/text/tokenizer_test_util.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
using attnlab::test::fixture;

Q_DECLARE_METATYPE(QList<int>)

namespace {

const WordPieceTokenizer& tokenizer(const QString& source) {
  static std::unique_ptr<TextTokenizer> json, txt;
  if (!json) {
    const std::string dir = fixture("lm-buddy/bert_tiniest");
    json = loadTokenizer(dir, "bert");
    WordPieceOptions o;
    o.specialTokens = {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"};
    txt = std::make_unique<WordPieceTokenizer>(
        WordPieceTokenizer::fromVocabTxt(readTextFile(dir + "/vocab.txt"), "vocab.txt", o));
  }
  return dynamic_cast<const WordPieceTokenizer&>(source == "tokenizer.json" ? *json : *txt);
}

QStringList texts(const TokenizedText& t) {
  QStringList out;
  for (const Token& tok : t.tokens) out << QString::fromStdString(tok.text);
  return out;
}

}  // namespace

class TestTokenizerBert : public QObject {
  Q_OBJECT
 private slots:
  void vectors_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("pair");
    QTest::addColumn<QStringList>("tokens");
    QTest::addColumn<QList<int>>("ids");
    const nlohmann::json v = readJsonFile(fixture("transformers.js/bert_uncased_tokenization_vectors.json"));
    for (const char* source : {"tokenizer.json", "vocab.txt"})
      for (const auto& [name, c] : v["Xenova/bert-base-uncased"].items())
        QTest::addRow("%s %s", source, name.c_str())
            << source << QString::fromStdString(c["text"])
            << (c.contains("text_pair") ? QString::fromStdString(c["text_pair"]) : QString())
            << test::jsonStrings(c["tokens"]) << test::toQInts(c["ids"]);
  }
  void vectors() {
    QFETCH(QString, source);
    QFETCH(QString, text);
    QFETCH(QString, pair);
    QFETCH(QStringList, tokens);
    QFETCH(QList<int>, ids);
    const WordPieceTokenizer& t = tokenizer(source);
    if (!pair.isEmpty()) {
      const TokenizedText r = t.encodePair(text.toStdString(), pair.toStdString());
      QCOMPARE(QList<int>(r.ids.begin(), r.ids.end()), ids);
      return;
    }
    // The vectors list tokens without the special ones and ids with [CLS] … [SEP].
    QCOMPARE(texts(t.encode(text.toStdString(), false)), tokens);
    const TokenizedText r = t.encode(text.toStdString(), true);
    QCOMPARE(QList<int>(r.ids.begin(), r.ids.end()), ids);
    QCOMPARE(r.tokens.front().text, std::string("[CLS]"));
    QCOMPARE(r.tokens.back().text, std::string("[SEP]"));
    int last = 0;
    for (const Token& tok : r.tokens) {  // spans are ordered and inside the text
      QVERIFY(tok.byteBegin >= last && tok.byteEnd >= tok.byteBegin);
      QVERIFY(tok.u16End <= text.size());
      last = tok.byteBegin;
    }
  }

  void offsetsPointAtTheTypedText() {
    const QString text = QStringLiteral("Héllo, 北京 playing!");
    const TokenizedText r = tokenizer("tokenizer.json").encode(text.toStdString(), true);
    QStringList spans;
    for (const Token& tok : r.tokens) spans << text.mid(tok.u16Begin, tok.u16End - tok.u16Begin);
    QCOMPARE(texts(r), (QStringList{"[CLS]", "hello", ",", "北", "京", "playing", "!", "[SEP]"}));
    QCOMPARE(spans, (QStringList{"", "Héllo", ",", "北", "京", "playing", "!", ""}));
  }

  void wordPiecesAndUnknown() {
    const WordPieceTokenizer& t = tokenizer("tokenizer.json");
    QCOMPARE(texts(t.encode("unaffable tokenization", false)),
             (QStringList{"una", "##ffa", "##ble", "token", "##ization"}));
    // A word longer than max_input_chars_per_word (100) is one [UNK].
    QCOMPARE(texts(t.encode(std::string(101, 'a'), false)), QStringList{"[UNK]"});
    QCOMPARE(texts(t.encode(std::string(100, 'a'), false)).size() > 1, true);
    // Special tokens typed in the text are kept whole, even in upper case in an uncased model.
    QCOMPARE(texts(t.encode("a [MASK] b", false)), (QStringList{"a", "[MASK]", "b"}));
  }

  void normalizer_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("words");
    QTest::newRow("accents and case") << "ÉCOLE Ñandú" << QStringList{"ecole", "nandu"};
    QTest::newRow("punctuation split") << "a.b,c" << QStringList{"a", ".", "b", ",", "c"};
    QTest::newRow("ascii symbols are punctuation") << "x$y^z" << QStringList{"x", "$", "y", "^", "z"};
    QTest::newRow("cjk spaced, kana not") << "東京タワー" << QStringList{"東", "京", "タワー"};
    QTest::newRow("controls dropped") << QString("a\u200bb\u0007c") << QStringList{"abc"};
    QTest::newRow("hangul decomposes") << QString("한") << QStringList{QString("\u1112\u1161\u11ab")};
    QTest::newRow("greek tonos") << QString("Άλφα") << QStringList{QString("αλφα")};
    // Accents are stripped before lower-casing (as tokenizers does), so İ loses its dot.
    QTest::newRow("dotted capital I") << QString("İstanbul") << QStringList{"istanbul"};
  }
  void normalizer() {
    QFETCH(QString, text);
    QFETCH(QStringList, words);
    QStringList got;
    for (const auto& w : bertWords(text.toStdString(), 0, {})) {
      std::u32string s;
      for (const NormChar& c : w) s += c.c;
      got << QString::fromStdU32String(s);
    }
    QCOMPARE(got, words);
  }

  void invalidUtf8NeverCrashes() {
    std::string junk = "ok \xC3 \x80\x80 \xE2\x82 \xF0\x9F\x98 \xC0\xAF \xED\xA0\x80 end";
    for (int i = 0; i < 256; ++i) junk += static_cast<char>(i);
    const TokenizedText r = tokenizer("tokenizer.json").encode(junk, true);
    QVERIFY(r.ids.size() >= 4);
    QCOMPARE(r.tokens[1].text, std::string("ok"));
  }

  void badFiles() {
    auto expectError = [](const std::string& vocab, const char* message) {
      try {
        WordPieceTokenizer::fromVocabTxt(vocab, "vocab.txt", {});
        QFAIL("no error");
      } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith(message), e.what());
      }
    };
    expectError("[CLS]\n[SEP]\nhello\n", "vocab.txt: unknown-token \"[UNK]\" is not in the vocabulary");
    expectError("[UNK]\n[CLS]\nhello\n", "vocab.txt: \"[CLS]\" or \"[SEP]\" is not in the vocabulary");
    expectError("[UNK]\n[CLS]\n[SEP]\nbad\xff\n", "vocab.txt: line 4: invalid UTF-8");
    // max_input_chars_per_word out of int's range (found by the fuzzer), fractional, negative or a string.
    for (const char* value : {"1099E+90", "2.5", "-3", "\"100\""}) {
      const std::string json = std::string(R"({"model": {"type": "WordPiece", "max_input_chars_per_word": )") + value +
                               R"(, "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}}})";
      try {
        WordPieceTokenizer::fromTokenizerJson(nlohmann::json::parse(json), "tokenizer.json");
        QFAIL(value);
      } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith("tokenizer.json: max_input_chars_per_word must be a positive integer"),
                 e.what());
      }
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTokenizerBert)
#include "test_tokenizer_bert.moc"
