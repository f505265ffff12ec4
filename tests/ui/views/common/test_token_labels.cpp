// Token labels as a reader sees them: GPT-2's byte-level pieces decoded ("Ġcat" → "·cat", a CJK
// character cut between two tokens as its bytes), while exported numbers keep the vocabulary's raw
// spelling. With the real GPT-2 vocabulary (tests/fixtures/lm-buddy/fake_gpt2) end to end.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "core/text/bpe_tokenizer.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/view_export.h"
#include "ui/shell/view_factory.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

ResultPtr gpt2(const std::string& sentence) {
  Params p;
  p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/fixtures/lm-buddy/fake_gpt2";
  p.sentence = sentence;
  return LiveController::compute(p, nullptr, {});
}

QStringList jsonRows(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QStringList rows;
  const QJsonObject m = QJsonDocument::fromJson(f.readAll()).object()["matrices"].toArray().first().toObject();
  for (const QJsonValue& v : m["rows"].toArray()) rows << v.toString();
  return rows;
}

}  // namespace

class TestTokenLabels : public QObject {
  Q_OBJECT

 private slots:
  void byteLevelPiecesReadAsText() {
    QCOMPARE(byteLevelDisplay("Ġcat"), QString("·cat"));
    QCOMPARE(byteLevelDisplay("ĠĠ"), QString("··"));
    QCOMPARE(byteLevelDisplay("Ċ"), QString("↵"));
    QCOMPARE(byteLevelDisplay(byteStandIns()['\t'] + "x"), QString("⇥x"));
    QCOMPARE(byteLevelDisplay("cat"), QString("cat"));
    QCOMPARE(byteLevelDisplay("<|endoftext|>"), QString("<|endoftext|>"));
    // "é" is bytes C3 A9, stand-ins "Ã" "©"; a whole character decodes, a lone byte is named.
    QCOMPARE(byteLevelDisplay("Ã©t"), QString("ét"));
    QCOMPARE(byteLevelDisplay("Ã"), QString("<0xC3>"));
    QCOMPARE(byteLevelDisplay(byteStandIns()[0x7F]), QString("<0x7F>"));
    QCOMPARE(byteLevelDisplay("我"), QString("我"));  // not made of stand-ins: left alone
  }

  // Decoder families: Llama-3-style byte-level pieces decode like GPT-2's; SentencePiece-style pieces
  // (Mistral, Gemma) show "▁" as "·", and a byte-fallback piece holding part of "é" stays "<0xC3>".
  void decoderFamiliesShowTheirPieces() {
    Params p;
    p.sentence = "The cat gave the café 12345 roses";
    p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/mistral-window";
    ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    QVERIFY2(r->rawTokenLabels().contains("▁cat"), qPrintable(r->rawTokenLabels().join(" ")));
    QVERIFY2(r->tokenLabels().contains("·cat"), qPrintable(r->tokenLabels().join(" ")));
    QVERIFY2(r->tokenLabels().contains("<0xC3>"), qPrintable(r->tokenLabels().join(" ")));
    p.modelDir = std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/llama-gqa";
    r = LiveController::compute(p, nullptr, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    QVERIFY2(r->rawTokenLabels().contains("Ġcat"), qPrintable(r->rawTokenLabels().join(" ")));
    QVERIFY2(r->tokenLabels().contains("·cat"), qPrintable(r->tokenLabels().join(" ")));
  }

  void gpt2TokensShowDecodedAndExportRaw() {
    const ResultPtr r = gpt2("the cat 我");
    QVERIFY2(r->ok(), qPrintable(r->error));
    const QStringList raw = r->rawTokenLabels(), shown = r->tokenLabels();
    QVERIFY(raw.contains("Ġcat"));
    QCOMPARE(shown.at(raw.indexOf("Ġcat")), QString("·cat"));
    // GPT-2 cuts 我 (E6 88 91) into two tokens: each shows its bytes, a space mark first.
    QCOMPARE(shown.join("|").count("<0x"), 3);
    QVERIFY(shown.join("").contains("·<0xE6>"));
    for (const QString& s : shown) QVERIFY2(!s.contains(QChar(0x0120)), qPrintable(s));  // no "Ġ" left

    QTemporaryDir dir;
    for (const QString& view : {QString("heatmap"), QString("model"), QString("qkv")}) {
      ExportRequest req;
      req.view = view;
      req.format = "json";
      req.path = dir.filePath(view + ".json");
      QCOMPARE(exportView(r, req), QString());
      QCOMPARE(jsonRows(req.path), raw);  // the numbers keep the tokens as the vocabulary spells them
    }
  }

  void otherTokenizersAreLeftAlone() {
    Params p;
    p.sentence = "café naïve";
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY(r->ok());
    QCOMPARE(r->tokenLabels(), r->rawTokenLabels());
    QVERIFY(r->tokenLabels().contains("café"));
  }
};

ATTNLAB_TEST_MAIN(TestTokenLabels)
#include "test_token_labels.moc"
