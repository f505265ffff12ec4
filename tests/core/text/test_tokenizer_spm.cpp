// SentencePiece model files through libsentencepiece (sentencepiece_tokenizer.h) against Debian's
// python3-sentencepiece (the same library's own encoder: ids, pieces and byte spans of its immutable
// proto) and against transformers' MarianTokenizer logic (tests/reference/make_spm_reference.py maps the
// pieces through vocab.json the way MarianTokenizer does); T5's and Marian's folders through
// tokenizer_loader; folders with missing, corrupt or disagreeing files.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/sentencepiece_tokenizer.h"
#include "core/text/tokenizer_loader.h"
#include "tests/core/text/tokenizer_test_util.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

std::string spmDir() { return std::string(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/"; }

const nlohmann::json& reference() {
  static const nlohmann::json j = readJsonFile(spmDir() + "reference.json");
  return j;
}

QList<int> idsOf(const TokenizedText& t) { return QList<int>(t.ids.begin(), t.ids.end()); }

/// A copy of the Marian folder to damage.
std::string marianCopy(const QTemporaryDir& dir) {
  const std::string d = dir.path().toStdString() + "/marian";
  fs::copy(spmDir() + "marian", d, fs::copy_options::recursive);
  return d;
}

QString loadError(const std::string& dir) {
  try {
    loadTokenizerForFolder(dir);
  } catch (const InputError& e) {
    return QString::fromUtf8(e.what());
  }
  return "no InputError";
}

}  // namespace

class TestTokenizerSpm : public QObject {
  Q_OBJECT
 private slots:
  void library_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("index");
    const std::pair<const char*, const char*> models[] = {{"t5like", "t5like.model"},
                                                          {"fallback", "fallback.model"},
                                                          {"marian_source", "marian/source.spm"},
                                                          {"marian_target", "marian/target.spm"}};
    for (const auto& [name, file] : models)
      for (std::size_t i = 0; i < reference()["texts"].size(); ++i)
        QTest::addRow("%s %d", name, static_cast<int>(i)) << QString(name) << QString(file) << static_cast<int>(i);
  }

  /// The bare model: python sentencepiece's ids, pieces (but the unknown piece, which Python names by its
  /// text and this by <unk>) and spans, for every text.
  void library() {
    QFETCH(QString, name);
    QFETCH(QString, file);
    QFETCH(int, index);
    const auto tok = SentencePieceTokenizer::fromFile(spmDir() + file.toStdString(), {});
    const std::string text = reference()["texts"][static_cast<std::size_t>(index)];
    const nlohmann::json& want = reference()["spm"][name.toStdString()][static_cast<std::size_t>(index)];
    const TokenizedText t = tok->encode(text, true);  // no eos without options
    QCOMPARE(idsOf(t), test::toQInts(want["ids"]));
    const int unk = tok->idOf("<unk>");
    // Python's binding reports the spans in code points (ConvertToUnicodeSpans), the library in bytes.
    std::vector<int> cp(text.size() + 1);
    for (std::size_t pos = 0, n = 0; pos <= text.size(); ++pos) {
      cp[pos] = static_cast<int>(n);
      if (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) != 0x80) cp[pos] = static_cast<int>(n++);
    }
    for (std::size_t k = 0; k < t.tokens.size(); ++k) {
      if (t.ids[k] != unk)
        QCOMPARE(QString::fromStdString(t.tokens[k].text), QString::fromStdString(want["pieces"][k]));
      const int b = cp[static_cast<std::size_t>(t.tokens[k].byteBegin)],
                e = cp[static_cast<std::size_t>(t.tokens[k].byteEnd)];
      QCOMPARE(QString("%1 [%2, %3)").arg(k).arg(b).arg(e),
               QString("%1 [%2, %3)").arg(k).arg(want["spans"][k][0].get<int>()).arg(want["spans"][k][1].get<int>()));
    }
  }

  /// T5's folder without tokenizer.json: the model's ids, </s> (id 1) appended, sentinels after the 400
  /// pieces (<extra_id_0> = 400 − 1 + 3 − 0 = 402 with extra_ids 3), special tokens split out first.
  void t5Folder() {
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    fs::copy_file(spmDir() + "t5like.model", d + "/spiece.model");
    std::ofstream(d + "/tokenizer_config.json") << R"({"extra_ids": 3})";
    const auto tok = loadTokenizerForFolder(d);
    QCOMPARE(tok->vocabSize(), 403);
    QCOMPARE(tok->idOf("<extra_id_0>"), 402);
    QCOMPARE(tok->idOf("<extra_id_2>"), 400);
    QCOMPARE(QString::fromStdString(tok->pieceOf(401)), QString("<extra_id_1>"));
    const auto texts = reference()["texts"];
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string text = texts[i];
      if (text.find('<') != std::string::npos) continue;
      QList<int> want = test::toQInts(reference()["spm"]["t5like"][i]["ids"]);
      want << 1;
      QCOMPARE(idsOf(tok->encode(text, true)), want);
      QCOMPARE(idsOf(tok->encode(text, false)), want.mid(0, want.size() - 1));
    }
    // Each stretch between special tokens is encoded on its own (each gets SentencePiece's leading ▁).
    const auto bare = SentencePieceTokenizer::fromFile(d + "/spiece.model", {});
    QList<int> want;
    for (const char* part : {"a <0x41> b", "|2", " c", "|402", "d", "|1"})
      want << (part[0] == '|' ? QList<int>{std::atoi(part + 1)} : idsOf(bare->encode(part, false)));
    const TokenizedText t = tok->encode("a <0x41> b<unk> c<extra_id_0>d</s>", true);
    QCOMPARE(idsOf(t), want);                 // a </s> typed at the end is not doubled
    QCOMPARE(t.tokens.back().byteBegin, 30);  // the typed </s>, not an appended one at 34
    QCOMPARE(t.tokens.back().byteEnd, 34);
  }

  /// Marian's folder: the reference's MarianTokenizer ids (vocab.json mapping, <unk> for pieces outside it,
  /// the language code, special tokens, </s> = 0 appended) for every text.
  void marianFolder() {
    const auto tok = loadTokenizerForFolder(spmDir() + "marian");
    const auto texts = reference()["texts"];
    for (std::size_t i = 0; i < texts.size(); ++i)
      QCOMPARE(idsOf(tok->encode(texts[i].get<std::string>(), true)), test::toQInts(reference()["marian"][i]["ids"]));
    const TokenizedText t = tok->encode(">>fra<< the small green house", true);
    QCOMPARE(QString::fromStdString(t.tokens[0].text), QString(">>fra<<"));
    QCOMPARE(t.tokens[0].byteEnd, 7);
    QCOMPARE(t.tokens[1].byteBegin, 8);  // "▁the" spans "the" (nmt_nfkc drops the leading space)
    QCOMPARE(t.tokens[1].byteEnd, 11);
    QCOMPARE(QString::fromStdString(t.tokens.back().text), QString("</s>"));
    QCOMPARE(tok->idOf("<pad>"), tok->vocabSize() - 1);
  }

  /// The target side: target.spm's pieces (python sentencepiece) mapped through vocab.json, </s> appended.
  void marianTarget() {
    const auto tok = loadMarianTokenizer(spmDir() + "marian", MarianSide::Target);
    const nlohmann::json vocab = readJsonFile(spmDir() + "marian/vocab.json");
    const auto texts = reference()["texts"];
    int compared = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string text = texts[i];
      if (text.find('<') != std::string::npos || text.find('>') != std::string::npos) continue;
      QList<int> want;
      for (const auto& piece : reference()["spm"]["marian_target"][i]["pieces"])
        want << (vocab.contains(piece) ? vocab[piece].get<int>() : vocab["<unk>"].get<int>());
      want << vocab["</s>"].get<int>();
      QCOMPARE(idsOf(tok->encode(text, true)), want);
      ++compared;
    }
    QCOMPARE(compared, 16);
  }

  /// Both sides from one reading of the folder (openEncDecFolder's call): the same ids as the one-side loaders, the
  /// source side python sentencepiece's through vocab.json (reference.json's "marian").
  void bothSidesAtOnce() {
    const MarianTokenizers both = loadMarianTokenizers(spmDir() + "marian");
    const auto source = loadMarianTokenizer(spmDir() + "marian", MarianSide::Source);
    const auto target = loadMarianTokenizer(spmDir() + "marian", MarianSide::Target);
    const auto texts = reference()["texts"];
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string text = texts[i];
      QCOMPARE(idsOf(both.source->encode(text, true)), idsOf(source->encode(text, true)));
      QCOMPARE(both.source->encode(text, true).ids, reference()["marian"][i]["ids"].get<std::vector<int>>());
      QCOMPARE(idsOf(both.target->encode(text, true)), idsOf(target->encode(text, true)));
    }
    QCOMPARE(both.target->vocabSize(), target->vocabSize());
  }

  void badFolders() {
    QTemporaryDir dir;
    {
      const std::string d = marianCopy(dir);
      fs::remove(d + "/target.spm");
      QVERIFY2(loadError(d).endsWith("a Marian tokenizer needs source.spm, target.spm and vocab.json; missing: "
                                     "target.spm"),
               qPrintable(loadError(d)));
      fs::remove(d + "/vocab.json");
      QVERIFY(loadError(d).endsWith("missing: target.spm, vocab.json"));
    }
    QTemporaryDir dir2;
    {
      const std::string d = marianCopy(dir2);
      std::ofstream(d + "/source.spm") << "not a model";
      QVERIFY2(loadError(d).contains("source.spm: not a SentencePiece model"), qPrintable(loadError(d)));
    }
    QTemporaryDir dir3;
    {
      const std::string d = marianCopy(dir3);
      nlohmann::json v = readJsonFile(d + "/vocab.json");
      v.erase("\xE2\x96\x81the");  // ▁the
      std::ofstream(d + "/vocab.json") << v.dump();
      QVERIFY2(
          loadError(d).contains("vocab.json: the vocabularies disagree: 1 piece(s) of " + QString::fromStdString(d) +
                                "/source.spm are not in it (the first: \"\xE2\x96\x81the\")"),
          qPrintable(loadError(d)));
      v.erase("<unk>");
      std::ofstream(d + "/vocab.json") << v.dump();
      QVERIFY2(loadError(d).contains("has no id for the special token \"<unk>\""), qPrintable(loadError(d)));
      std::ofstream(d + "/vocab.json") << R"({"</s>": "zero"})";
      QVERIFY2(loadError(d).contains("piece \"</s>\" has an invalid id \"zero\""), qPrintable(loadError(d)));
    }
    QTemporaryDir dir4;
    {
      const std::string d = dir4.path().toStdString();
      QVERIFY2(loadError(d).contains("no tokenizer files"), qPrintable(loadError(d)));
      std::ofstream(d + "/spiece.model") << "";
      QVERIFY2(loadError(d).contains("spiece.model: not a SentencePiece model"), qPrintable(loadError(d)));
      std::ofstream(d + "/spiece.model") << std::string(1000, '\xff');
      QVERIFY2(loadError(d).contains("spiece.model: not a SentencePiece model"), qPrintable(loadError(d)));
    }
  }

  /// Invalid UTF-8 and NUL bytes reach SentencePiece without a crash; spans stay inside the text, in order.
  void oddText() {
    const auto tok = SentencePieceTokenizer::fromFile(spmDir() + "t5like.model", {});
    const std::string bad = std::string("a\xff\xfe b\xc3(\xe4\xb8") + '\0' + "c";
    const TokenizedText t = tok->encode(bad, false);
    QVERIFY(!t.tokens.empty());
    int last = 0;
    for (const Token& k : t.tokens) {
      QVERIFY(k.byteBegin >= last && k.byteBegin <= k.byteEnd && k.byteEnd <= static_cast<int>(bad.size()));
      last = k.byteBegin;
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTokenizerSpm)
#include "test_tokenizer_spm.moc"
