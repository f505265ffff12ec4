// tokenizer.json's Unigram model (T5, ALBERT, XLNet…) and the Precompiled normalizer, against small
// vocabularies whose best cuts are computed by hand here, and against Hugging Face's own encodings
// (npm tokenizers) of the tokenizer.json files made from small trained SentencePiece models
// (tests/reference/make_spm_reference.py).
#include <QtTest>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/graphemes.h"
#include "core/text/hf_precompiled.h"
#include "core/text/hf_tokenizer.h"
#include "core/text/utf8.h"
#include "tests/core/text/tokenizer_test_util.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

/// A tokenizer.json with only a Unigram model of `vocab` ([[piece, score], …]) and unk_id 0.
std::unique_ptr<HfTokenizer> unigram(const nlohmann::json& vocab, bool byteFallback = false) {
  const nlohmann::json j = {
      {"model", {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}, {"byte_fallback", byteFallback}}}};
  return HfTokenizer::fromJson(j, nlohmann::json::object(), "tokenizer.json");
}

/// "piece [begin, end)" per token, byte spans of the text.
QStringList cut(const HfTokenizer& t, const std::string& text) {
  QStringList out;
  for (const Token& k : t.encode(text, false).tokens)
    out << QString("%1 [%2, %3)").arg(QString::fromStdString(k.text)).arg(k.byteBegin).arg(k.byteEnd);
  return out;
}

std::string spmDir() { return std::string(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/"; }

const nlohmann::json& spmReference() {
  static const nlohmann::json j = readJsonFile(spmDir() + "reference.json");
  return j;
}

/// Byte offset → code point index of `text` (the binding's offsets count code points).
std::vector<int> codePointIndex(const std::string& text) {
  std::vector<int> idx(text.size() + 1);
  int k = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const utf8::CodePoint c = utf8::decode(text, pos);
    for (std::size_t i = pos; i < pos + c.size; ++i) idx[i] = k;
    pos += c.size;
    ++k;
  }
  idx[text.size()] = k;
  return idx;
}

}  // namespace

class TestTokenizerUnigram : public QObject {
  Q_OBJECT
 private slots:
  /// Scores: a −1, b −2, c −3, ab −2.5, abc −5; the unknown node scores −5 − 10 = −15.
  void viterbiByHand() {
    const auto t =
        unigram(nlohmann::json::parse(R"([["<unk>", 0], ["a", -1], ["b", -2], ["c", -3], ["ab", -2.5], ["abc", -5]])"));
    // abc: a+b+c = −6, ab+c = −5.5, abc = −5 → abc.
    QCOMPARE(cut(*t, "abc"), QStringList({"abc [0, 3)"}));
    // abab: ab+ab = −5 beats a+b+a+b = −6; ab+a+b = −5.5.
    QCOMPARE(cut(*t, "abab"), QStringList({"ab [0, 2)", "ab [2, 4)"}));
    // x and é have no piece: one unknown node each, fused into one token over both (3 bytes).
    QCOMPARE(cut(*t,
                 "x\xC3\xA9"
                 "ab"),
             QStringList({"<unk> [0, 3)", "ab [3, 5)"}));
    // cabx: c + ab (−5.5) beats c + a + b (−6); the x alone is unknown.
    QCOMPARE(cut(*t, "cabx"), QStringList({"c [0, 1)", "ab [1, 3)", "<unk> [3, 4)"}));
    QCOMPARE(t->encode("", false).tokens.size(), std::size_t(0));
  }

  /// Equal scores keep the first candidate: "ab" (−2) is offered from position 0 before a+b (−1 −1).
  void tiesKeepTheFirst() {
    const auto t = unigram(nlohmann::json::parse(R"([["<unk>", 0], ["a", -1], ["b", -1], ["ab", -2]])"));
    QCOMPARE(cut(*t, "ab"), QStringList({"ab [0, 2)"}));
    const auto u = unigram(nlohmann::json::parse(R"([["<unk>", 0], ["a", -1], ["b", -1], ["ab", -2.001]])"));
    QCOMPARE(cut(*u, "ab"), QStringList({"a [0, 1)", "b [1, 2)"}));
  }

  /// A character with a longer piece starting there but no one-character piece still gets an unknown
  /// node: "xy" (−1) against unknown x (−12) + y (−1); with only "xy", "x" alone is unknown.
  void unknownNodeBesideLongerPieces() {
    const auto t = unigram(nlohmann::json::parse(R"([["<unk>", -2], ["xy", -1], ["y", -1]])"));
    QCOMPARE(cut(*t, "xy"), QStringList({"xy [0, 2)"}));
    QCOMPARE(cut(*t, "xxy"), QStringList({"<unk> [0, 1)", "xy [1, 3)"}));
  }

  /// byte_fallback: an unknown stretch becomes its bytes' <0xNN> tokens, each spanning the stretch, when
  /// every byte token exists; otherwise it stays <unk>.
  void byteFallback() {
    nlohmann::json vocab = nlohmann::json::parse(R"([["<unk>", 0], ["a", -1]])");
    for (const char* b : {"<0xC3>", "<0xA9>", "<0x78>"}) vocab.push_back({b, 0.0});
    const auto t = unigram(vocab, true);
    QCOMPARE(cut(*t, "a\xC3\xA9x"), QStringList({"a [0, 1)", "<0xC3> [1, 4)", "<0xA9> [1, 4)", "<0x78> [1, 4)"}));
    QCOMPARE(cut(*t, "ya"), QStringList({"<unk> [0, 1)", "a [1, 2)"}));  // no <0x79>
    // The byte tokens are pieces like any other: their names typed in the text match (score 0 here).
    QCOMPARE(cut(*t, "<0x78>"), QStringList({"<0x78> [0, 6)"}));
  }

  /// Every case of Unicode's own GraphemeBreakTest.txt (15.0, from Debian's unicode-data).
  void graphemeBreakTest() {
    std::ifstream in(std::string(ATTNLAB_TEST_DATA) + "/reference/unicode/GraphemeBreakTest.txt");
    QVERIFY(in.good());
    int cases = 0;
    for (std::string line; std::getline(in, line);) {
      line = line.substr(0, line.find('#'));
      if (line.empty()) continue;
      std::istringstream words(line);
      std::u32string s;
      std::vector<std::size_t> want;
      for (std::string w; words >> w;) {
        if (w == "\xC3\xB7") {  // ÷
          if (!s.empty()) want.push_back(s.size());
        } else if (w != "\xC3\x97") {  // ×
          s += static_cast<char32_t>(std::stoul(w, nullptr, 16));
        }
      }
      QVERIFY2(unicode::graphemeEnds(s) == want, line.c_str());
      ++cases;
    }
    QCOMPARE(cases, 602);
  }

  void hfReference_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("index");
    for (const char* name : {"t5like", "fallback"})
      for (std::size_t i = 0; i < spmReference()["texts"].size(); ++i)
        QTest::addRow("%s %d", name, static_cast<int>(i)) << QString(name) << static_cast<int>(i);
  }

  /// The tokenizer.json files against Hugging Face's encodings: ids, offsets (code points; the template's
  /// </s> is (0, 0) there, empty here) and tokens (Hugging Face names an unknown token by its text).
  void hfReference() {
    QFETCH(QString, name);
    QFETCH(int, index);
    static std::map<QString, std::unique_ptr<HfTokenizer>> cache;
    std::unique_ptr<HfTokenizer>& tok = cache[name];
    if (!tok) {
      const std::string file = spmDir() + name.toStdString() + ".json";
      tok = HfTokenizer::fromJson(readJsonFile(file), nlohmann::json::object(), file);
    }
    const std::string text = spmReference()["texts"][static_cast<std::size_t>(index)];
    const nlohmann::json& want = spmReference()["hf"][name.toStdString()][static_cast<std::size_t>(index)];
    const TokenizedText t = tok->encode(text, true);
    QCOMPARE(QList<int>(t.ids.begin(), t.ids.end()), test::toQInts(want["ids"]));
    const std::vector<int> cp = codePointIndex(text);
    const int unk = tok->tokenToId("<unk>");
    for (std::size_t k = 0; k < t.tokens.size(); ++k) {
      const Token& tk = t.tokens[k];
      if (t.ids[k] != unk) QCOMPARE(QString::fromStdString(tk.text), QString::fromStdString(want["tokens"][k]));
      const int rb = want["offsets"][k][0], re = want["offsets"][k][1];
      if (rb == 0 && re == 0 && tk.byteBegin == tk.byteEnd) continue;
      QCOMPARE(QString("token %1 [%2, %3)").arg(k).arg(cp[tk.byteBegin]).arg(cp[tk.byteEnd]),
               QString("token %1 [%2, %3)").arg(k).arg(rb).arg(re));
    }
  }

  void badCharsmaps_data() {
    QTest::addColumn<QString>("base64");
    QTest::addColumn<QString>("message");
    QTest::newRow("not base64") << "AAA*"
                                << "not base64 (character 3)";
    QTest::newRow("too short") << "AQI="
                               << "too short (2 bytes)";
    QTest::newRow("truncated") << "QAAAAAAAAAA="
                               << "its trie needs 64 bytes, 4 follow";
    QTest::newRow("pool not UTF-8") << "BAAAAAAAAAD/AA=="
                                    << "not UTF-8";
  }

  void badCharsmaps() {
    QFETCH(QString, base64);
    QFETCH(QString, message);
    try {
      PrecompiledCharsmap::fromBase64(base64.toStdString(), "tokenizer.json: normalizer Precompiled");
      QFAIL("no InputError");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(message), e.what());
    }
  }

  /// An empty trie (size 4, one zero unit) maps nothing and leaves the text and its spans alone.
  void emptyCharsmap() {
    const PrecompiledCharsmap m = PrecompiledCharsmap::fromBase64("BAAAAAAAAAA=", "x");
    QVERIFY(!m.transform("abc"));
    NormalizedText t = NormalizedText::fromOriginal("a\xC3\xA9", 0, 3);
    m.normalize(t);
    QCOMPARE(t.chars.size(), std::size_t(2));
    QCOMPARE(t.align[1].begin, 1);
  }

  void badModels_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("message");
    QTest::newRow("no unk_id") << R"({"type": "Unigram", "vocab": [["a", 0.0]]})"
                               << "without unk_id";
    QTest::newRow("unk_id out of range") << R"({"type": "Unigram", "unk_id": 3, "vocab": [["a", 0.0]]})"
                                         << "unk_id 3 is not an id";
    QTest::newRow("entry not a pair") << R"({"type": "Unigram", "unk_id": 0, "vocab": [["a", 0.0], ["b"]]})"
                                      << "vocab entry 1 is not [\"piece\", score]";
    QTest::newRow("empty vocab") << R"({"type": "Unigram", "unk_id": 0, "vocab": []})"
                                 << "non-empty vocab";
  }

  void badModels() {
    QFETCH(QString, model);
    QFETCH(QString, message);
    try {
      HfTokenizer::fromJson({{"model", nlohmann::json::parse(model.toStdString())}}, nlohmann::json::object(),
                            "tokenizer.json");
      QFAIL("no InputError");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(message), e.what());
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTokenizerUnigram)
#include "test_tokenizer_unigram.moc"
