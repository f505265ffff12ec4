// GPT-2 byte-level BPE against the transformers.js and tiktoken vectors, from both file layouts
// (tokenizer.json; vocab.json + merges.txt) and with merges written as pairs; offsets; bad files.
#include <QtTest>

#include <fstream>
#include <memory>

#include "core/base/errors.h"
#include "core/text/bpe_tokenizer.h"
#include "core/text/gpt2_pretokenizer.h"
#include "core/text/tokenizer_loader.h"
#include "tests/core/text/tokenizer_test_util.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
using attnlab::test::fixture;

Q_DECLARE_METATYPE(QList<int>)

namespace {

/// The three ways of writing the same tokenizer.
const TextTokenizer& tokenizer(const QString& source) {
  static std::unique_ptr<TextTokenizer> json, files, pairs;
  if (!json) {
    const std::string dir = fixture("lm-buddy/fake_gpt2");
    json = loadTokenizer(dir, "gpt2");
    BpeOptions o;
    o.specialTokens = {"<|endoftext|>"};
    files = std::make_unique<BpeTokenizer>(BpeTokenizer::fromFiles(readTextFile(dir + "/vocab.json"), "vocab.json",
                                                                   readTextFile(dir + "/merges.txt"), "merges.txt", o));
    nlohmann::json j = readJsonFile(dir + "/tokenizer.json");
    for (auto& m : j["model"]["merges"]) {
      const std::string s = m.get<std::string>();
      const auto space = s.find(' ');
      m = nlohmann::json::array({s.substr(0, space), s.substr(space + 1)});
    }
    pairs = std::make_unique<BpeTokenizer>(BpeTokenizer::fromTokenizerJson(j, "tokenizer.json (pairs)"));
  }
  return source == "tokenizer.json" ? *json : source == "vocab+merges" ? *files : *pairs;
}

}  // namespace

class TestTokenizerGpt2 : public QObject {
  Q_OBJECT
 private slots:
  void vectors_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("tokens");  // empty: the vector gives ids only
    QTest::addColumn<QList<int>>("ids");
    const nlohmann::json tjs = readJsonFile(fixture("transformers.js/gpt2_tokenization_vectors.json"));
    const nlohmann::json tik = readJsonFile(fixture("tiktoken/gpt2_vectors.json"));
    for (const char* source : {"tokenizer.json", "vocab+merges", "merge pairs"}) {
      for (const auto& [name, c] : tjs["Xenova/gpt2"].items())
        QTest::addRow("%s transformers.js %s", source, name.c_str())
            << source << QString::fromStdString(c["text"]) << test::jsonStrings(c["tokens"]) << test::toQInts(c["ids"]);
      int i = 0;
      for (const auto& c : tik["cases"])
        QTest::addRow("%s tiktoken %d", source, i++)
            << source << QString::fromStdString(c["text"]) << QStringList() << test::toQInts(c["ids"]);
    }
  }
  void vectors() {
    QFETCH(QString, source);
    QFETCH(QString, text);
    QFETCH(QStringList, tokens);
    QFETCH(QList<int>, ids);
    const std::string utf8 = text.toStdString();
    const TokenizedText t = tokenizer(source).encode(utf8, false);
    if (!tokens.isEmpty()) {
      QStringList got;
      for (const Token& tok : t.tokens) got << QString::fromStdString(tok.text);
      QCOMPARE(got, tokens);
    }
    QCOMPARE(QList<int>(t.ids.begin(), t.ids.end()), ids);
    // Byte spans tile the text exactly: hovering any token highlights its own bytes.
    int pos = 0;
    for (const Token& tok : t.tokens) {
      QCOMPARE(tok.byteBegin, pos);
      QVERIFY(tok.byteEnd > tok.byteBegin);
      pos = tok.byteEnd;
      QVERIFY(tok.u16Begin <= tok.u16End && tok.u16End <= text.size());
    }
    QCOMPARE(pos, int(utf8.size()));
  }

  void utf16SpansCoverWholeCharacters() {
    // "生" is split into two byte-level pieces; both highlight the whole character.
    const QString text = QStringLiteral("a 生活 🐱");
    const TokenizedText t = tokenizer("tokenizer.json").encode(text.toStdString(), false);
    for (const Token& tok : t.tokens) {
      QVERIFY(tok.u16End > tok.u16Begin);
      const QString span = text.mid(tok.u16Begin, tok.u16End - tok.u16Begin);
      QVERIFY2(!span.isEmpty() && !span.front().isLowSurrogate(), qPrintable(span));
    }
    QCOMPARE(t.tokens.back().u16End, text.size());
  }

  void preTokenizerPieces_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("pieces");
    QTest::newRow("contractions") << "I'm they're we'VE" << QStringList{"I", "'m", " they", "'re", " we", "'", "VE"};
    QTest::newRow("spaces before word") << "a   b" << QStringList{"a", "  ", " b"};
    QTest::newRow("trailing spaces") << "a  " << QStringList{"a", "  "};
    QTest::newRow("newline then word") << "a\nb" << QStringList{"a", "\n", "b"};
    QTest::newRow("numbers and letters") << "abc123def" << QStringList{"abc", "123", "def"};
    QTest::newRow("nbsp is whitespace") << QString("x\u00a0\u00a0y")
                                        << QStringList{"x", QString("\u00a0"), QString("\u00a0"), "y"};
    QTest::newRow("accented letters") << "café über" << QStringList{"café", " über"};
    QTest::newRow("roman numeral is N") << QString("Ⅻ 12") << QStringList{QString("Ⅻ"), " 12"};
  }
  void preTokenizerPieces() {
    QFETCH(QString, text);
    QFETCH(QStringList, pieces);
    const std::string s = text.toStdString();
    QStringList got;
    for (const auto& [b, e] : gpt2PreTokenize(s)) got << QString::fromStdString(s.substr(b, e - b));
    QCOMPARE(got, pieces);
  }

  void toyVocabularyWithUnknownToken() {
    // tiny_gpt2: a 21-token toy vocabulary, "<unk>" for every byte it lacks.
    const auto t = loadTokenizer(fixture("lm-buddy/tiny_gpt2"), "gpt2");
    const TokenizedText r = t->encode(" lower newer", false);
    QStringList got;
    for (const Token& tok : r.tokens) got << QString::fromStdString(tok.text);
    QCOMPARE(got, (QStringList{"Ġlow", "er", "Ġ", "n", "e", "w", "er"}));
    const TokenizedText u = t->encode("lo!", false);
    QCOMPARE(QList<int>(u.ids.begin(), u.ids.end()), (QList<int>{0, 1, 19}));
  }

  void specialTokensAreMatchedAndOptional() {
    const TextTokenizer& t = tokenizer("tokenizer.json");
    const TokenizedText a = t.encode("hi<|endoftext|>", true);
    QCOMPARE(a.ids.back(), 50256);
    QCOMPARE(a.tokens.back().byteBegin, 2);
    // GPT-2 adds no special tokens of its own.
    QCOMPARE(t.encode("hello world", true).ids, t.encode("hello world", false).ids);
  }

  void invalidUtf8AndAllBytes() {
    std::string junk = "ok \xC3 \x80\x80 \xE2\x82 \xF0\x9F\x98 \xC0\xAF \xED\xA0\x80 end";
    for (int i = 0; i < 256; ++i) junk += static_cast<char>(i);
    const TokenizedText t = tokenizer("tokenizer.json").encode(junk, false);
    std::size_t bytes = 0;
    for (const Token& tok : t.tokens) bytes += tok.byteEnd - tok.byteBegin;
    QCOMPARE(bytes, junk.size());  // every byte is encoded, none lost
  }

  void longWordIsFast() {
    // The heap-based merge is O(n log n): a 200 kB "word" must not take quadratic time.
    const std::string word(200000, 'a');
    QElapsedTimer timer;
    timer.start();
    const TokenizedText t = tokenizer("tokenizer.json").encode(word, false);
    QVERIFY(!t.ids.empty());
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
  }

  void badFiles_data() {
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<QString>("merges");
    QTest::addColumn<QString>("message");
    QTest::newRow("malformed vocab") << "{\"a\": 0,"
                                     << ""
                                     << "vocab.json: malformed JSON";
    QTest::newRow("vocab not object") << "[1, 2]"
                                      << ""
                                      << "vocab.json: the vocabulary is not a JSON object";
    QTest::newRow("negative id") << "{\"a\": -1}"
                                 << ""
                                 << "vocab.json: token \"a\" has an invalid id";
    QTest::newRow("merge out of vocab") << "{\"a\": 0, \"b\": 1}"
                                        << "a b"
                                        << "merges.txt: line 1: merge \"a b\"";
    QTest::newRow("merge one token") << "{\"a\": 0}"
                                     << "#version: 0.2\nab"
                                     << "merges.txt: line 2: expected two tokens";
    QTest::newRow("deep nesting") << QString(100000, '[') << ""
                                  << "vocab.json: JSON nested deeper";
  }
  void badFiles() {
    QFETCH(QString, vocab);
    QFETCH(QString, merges);
    QFETCH(QString, message);
    try {
      BpeTokenizer::fromFiles(vocab.toStdString(), "vocab.json", merges.toStdString(), "merges.txt", {});
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).startsWith(message), e.what());
    }
  }

  void invalidUtf8InVocabulary() {
    try {
      BpeTokenizer::fromFiles("{\"a\xff\": 0}", "vocab.json", "", "merges.txt", {});
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("vocab.json: malformed JSON"), e.what());
    }
    try {
      BpeTokenizer::fromFiles("{\"a\": 0}", "vocab.json", "a \xff", "merges.txt", {});
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("merges.txt: line 1: invalid UTF-8"), e.what());
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTokenizerGpt2)
#include "test_tokenizer_gpt2.moc"
