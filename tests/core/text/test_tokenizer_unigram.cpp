// tokenizer.json's Unigram model (T5, ALBERT, XLNet…) and the Precompiled normalizer, against small
// vocabularies whose best cuts are computed by hand here, and against Hugging Face's own encodings
// (npm tokenizers) of the tokenizer.json files made from small trained SentencePiece models
// (tests/reference/make_spm_reference.py).
#include <QtTest>

#include <memory>

#include "core/base/errors.h"
#include "core/text/hf_tokenizer.h"
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
